"""The host reads its GPUs from NVML and torch's files, not torch (kgb.runner.host_gpus): on a
GPU run nothing on the way to the first job's sandbox imports torch, and where NVML cannot
stand in for torch's answer torch is asked as before."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from kgb.runner import host_gpus

# pynvml as far as the host uses it: two H200s, NVML index order = PCI bus order.
FAKE_NVML = '''
import types

class NVMLError(Exception):
    pass

def _fake(mig=0, cuda=13000):
    m = types.ModuleType("pynvml")
    m.NVMLError = NVMLError
    m.nvmlInit = lambda: None
    m.nvmlSystemGetCudaDriverVersion = lambda: cuda
    m.nvmlSystemGetDriverVersion = lambda: "580.159.04"
    m.nvmlDeviceGetCount = lambda: 2
    m.nvmlDeviceGetHandleByIndex = lambda i: i
    m.nvmlDeviceGetMigMode = lambda h: (mig, mig)
    m.nvmlDeviceGetName = lambda h: "NVIDIA H200"
    m.nvmlDeviceGetCudaComputeCapability = lambda h: (9, 0)
    m.nvmlDeviceGetMemoryInfo = lambda h: types.SimpleNamespace(total=150754820096)
    return m
'''

PROBE = FAKE_NVML + '''
import json, os, sys
sys.modules["pynvml"] = _fake(**json.loads(sys.argv[1]))
from kgb.runner import host_gpus, verify
host_gpus.torch_cuda_version = lambda: "13.0"  # this machine's torch is a CPU build
verify.gpu_device_nodes = lambda: ["/dev/nvidiactl"]
facts = {}
try:
    facts["device"] = verify.resolve_device(sys.argv[2])
    facts["slots"] = verify.resolve_slots(facts["device"], "all", 1)
    facts["identity"] = verify.device_identity(facts["slots"])
    facts["peaks"] = verify.device_peaks(facts["slots"]) is not None
    from kgb.runner.baseline_cache import software_key
    facts["key"] = software_key()
    from kgb.report.environment import collect
    facts["environment"] = collect(facts["slots"][-1], {})
    from kgb.placement.ray_slot import _device_name  # a Ray actor's, for its GPU
    facts["actor"] = _device_name("cuda:1")
except Exception as exc:
    facts["error"] = f"{type(exc).__name__}: {exc}"
facts["torch imported"] = "torch" in sys.modules
print(json.dumps(facts))
'''


def _probe(fake: dict, device: str = "auto", **env: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(fake), device],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**_clean_env(), **env})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _clean_env() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}


def test_a_gpu_host_plans_without_importing_torch():
    facts = _probe({})
    assert facts["device"] == "cuda:0" and facts["slots"] == ["cuda:0", "cuda:1"]
    assert facts["identity"] == "cuda:NVIDIA H200" and facts["peaks"]
    assert facts["key"]["cuda"] == "13.0" and facts["key"]["torch"]
    env = facts["environment"]
    assert (env["device_name"], env["compute_capability"], env["driver"], env["cuda"]) == \
        ("NVIDIA H200", "9.0", "580.159.04", "13.0")
    assert env["memory_bytes"] == 150754820096
    assert facts["actor"] == "NVIDIA H200"
    assert facts["torch imported"] is False


@pytest.mark.parametrize("fake, env", [
    ({}, {"CUDA_VISIBLE_DEVICES": "1"}),  # torch renumbers the GPUs; NVML does not
    ({"mig": 1}, {}),  # torch sees MIG instances, not the GPU
    ({"cuda": 12080}, {}),  # the driver is older than torch's CUDA: only torch can say
])
def test_where_nvml_cannot_stand_in_torch_is_asked(fake, env):
    """Here torch is a CPU build: asked, it sees no GPU, and `--device cuda` is refused as
    before instead of trusting NVML's two H200s."""
    facts = _probe(fake, "cuda", **env)
    assert facts["torch imported"] is True
    assert facts["error"].startswith("BadInput: --device cuda: no CUDA device is visible")


def test_torchs_cuda_is_read_from_its_version_file(tmp_path):
    import torch

    assert host_gpus.torch_cuda_version() == torch.version.cuda
    forms = {"from typing import Optional\ncuda: Optional[str] = '13.0'\n": "13.0",
             "cuda = '12.8'\nhip = None\n": "12.8",
             "cuda: Optional[str] = None\n": None,
             "debug = False\n": None,
             "cuda = (\n": None}  # unreadable: torch is asked instead
    for text, cuda in forms.items():
        path = tmp_path / "version.py"
        path.write_text(textwrap.dedent(text))
        assert host_gpus.cuda_in(path) == cuda, text
