"""Docker on a GPU without NVIDIA's container toolkit (issue 29): the job's container gets the
control nodes and its own /dev/nvidiaN only, and the driver's libraries read-only — what the
toolkit would inject, as the bwrap backend does. No engine or GPU is needed to build the spec;
the GPU machine's run is scripts/gpu/docker_gpu.sh (docs/gpu.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("docker")

from kgb.sandbox import docker as D
from kgb.sandbox import gpu
from kgb.sandbox.base import Limits, SandboxRequest

GPUS = [gpu.Gpu(0, "0000:01:00.0", "GPU-aaaa", 0), gpu.Gpu(1, "0000:02:00.0", "GPU-bbbb", 1)]
NODES = {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidia1"}


@pytest.fixture
def two_gpus(monkeypatch, tmp_path):
    real_exists = D.os.path.exists
    monkeypatch.setattr(gpu, "list_gpus", lambda: list(GPUS))
    monkeypatch.setattr(gpu, "all_nodes", lambda: ["/dev/nvidia0", "/dev/nvidia1"])
    monkeypatch.setattr(D.os.path, "exists", lambda p: p in NODES or real_exists(p))
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    driver = tmp_path / "driver"
    driver.mkdir()
    (driver / "libcuda.so.1").write_bytes(b"")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(driver))
    return driver


def _spec(device: str, tmp_path: Path) -> tuple[dict, dict]:
    box = D.DockerSandbox()
    box._gpu_runtime = False  # an engine without the nvidia runtime
    env: dict[str, str] = {}
    request = SandboxRequest(argv=("python3",), out_dir=tmp_path / "out", ro_paths=(),
                             env=(), tmp_dir=tmp_path / "tmp", device=device, label="r/j")
    return box._spec(request, Limits(), "sha256:x", env, []), env


def test_a_gpu_job_gets_its_own_gpu_node_and_the_driver_without_the_toolkit(two_gpus,
                                                                             tmp_path):
    spec, env = _spec("cuda:1", tmp_path)
    assert "device_requests" not in spec
    nodes = [d.split(":")[0] for d in spec["devices"]]
    assert "/dev/nvidia1" in nodes and "/dev/nvidia0" not in nodes  # only the job's GPU
    assert {"/dev/nvidiactl", "/dev/nvidia-uvm"} <= set(nodes)
    assert all(d.endswith(":rwm") for d in spec["devices"])
    assert env["CUDA_VISIBLE_DEVICES"] == "GPU-bbbb"
    driver = [m for m in spec["mounts"] if m["Source"] == str(two_gpus)]
    assert driver and driver[0]["ReadOnly"] is True


def test_with_the_toolkit_the_engine_hands_out_the_gpu(two_gpus, tmp_path):
    box = D.DockerSandbox()
    box._gpu_runtime = True
    request = SandboxRequest(argv=("python3",), out_dir=tmp_path / "out", ro_paths=(),
                             env=(), tmp_dir=tmp_path / "tmp", device="cuda:0", label="r/j")
    spec = box._spec(request, Limits(), "sha256:x", {}, [])
    assert "devices" not in spec
    assert spec["device_requests"][0]["DeviceIDs"] == ["GPU-aaaa"]


def test_the_gpu_mode_can_be_forced(monkeypatch):
    monkeypatch.setenv("KGB_DOCKER_GPU", "nodes")
    assert D.DockerSandbox()._has_gpu_runtime() is False
    monkeypatch.setenv("KGB_DOCKER_GPU", "toolkit")
    assert D.DockerSandbox()._has_gpu_runtime() is True


def test_the_containers_memory_makes_room_for_its_ram_backed_folders(tmp_path):
    """The memory cgroup charges tmpfs pages: a limit of memory_bytes alone OOM-killed an honest
    GPU job whose outputs outgrew it (signal 9, docs/gpu.md run 15)."""
    from kgb.sandbox.base import GiB, MiB

    limits = Limits(memory_bytes=8 * GiB, output_bytes=10 * GiB, tmp_bytes=512 * MiB)
    box = D.DockerSandbox()
    request = SandboxRequest(argv=("python3",), out_dir=tmp_path / "out", ro_paths=(),
                             env=(), tmp_dir=tmp_path / "tmp", label="r/j")
    spec = box._spec(request, limits, "sha256:x", {}, [])
    assert spec["mem_limit"] == spec["memswap_limit"] == 19 * GiB
    assert D.DockerSandbox.output_in_ram  # so `kgb verify` fits the output cap to the machine
