"""The docker backend's two copy-out paths give the same run folder: straight from the output
tmpfs through /proc/PID/root (where the host may read the engine's processes) and the tar stream
through the engine (everywhere else). Neither copies links or fifos."""

from __future__ import annotations

import os
import sys

import pytest

from kgb.sandbox import Limits, SandboxRequest, available_backends, create_sandbox
from kgb.sandbox import docker as D

pytestmark = pytest.mark.docker

# Written inside the container: what an honest worker leaves, and what a hostile one plants.
PLANT = """
import os
os.makedirs('sub/deeper')
open('result.json', 'w').write('{"ok": 1}')
open('sub/deeper/out.bin', 'wb').write(bytes(range(256)) * 4096)
os.symlink('/etc/passwd', 'passwd_link')
os.symlink('/', 'root_link')
os.mkfifo('pipe')
"""


def _run(tmp_path, name: str) -> tuple[dict[str, bytes], tuple[str, ...]]:
    reasons = available_backends()
    if reasons.get("docker", "not importable"):
        pytest.skip(f"docker backend unavailable: {reasons.get('docker')}")
    sandbox = create_sandbox("docker")
    out = tmp_path / name
    out.mkdir()
    tmp_path.chmod(0o755)
    try:
        result = sandbox.run(SandboxRequest(
            argv=(sys.executable, "-c", PLANT), out_dir=out, ro_paths=(), env=(),
            tmp_dir=tmp_path / f"{name}-tmp", cwd=out),
            Limits(wall_time_s=60, output_bytes=4 << 20))
    finally:
        sandbox.close()
    assert result.returncode == 0, result.stderr[-500:]
    files = {}
    for folder, _, names in os.walk(out):
        for n in names:
            path = os.path.join(folder, n)
            assert not os.path.islink(path), path
            with open(path, "rb") as f:
                files[os.path.relpath(path, out)] = f.read()
    return files, result.notes


def test_both_copy_out_paths_bring_the_same_regular_files_and_nothing_else(tmp_path,
                                                                          monkeypatch):
    used = []
    direct = D._collect_direct
    monkeypatch.setattr(D, "_collect_direct",
                        lambda *a: used.append(direct(*a)) or used[-1])
    fast, fast_notes = _run(tmp_path, "direct")
    if os.geteuid() == 0:  # root beside a local engine: the tar stream is not needed
        assert used and used[0] is not None
    monkeypatch.setattr(D, "_collect_direct", lambda *a: None)
    slow, slow_notes = _run(tmp_path, "tar")
    expected = {"result.json": b'{"ok": 1}',
                "sub/deeper/out.bin": bytes(range(256)) * 4096}
    assert fast == expected and slow == expected
    for notes in (fast_notes, slow_notes):  # two links and a fifo: named, not copied
        assert any("3 output entries" in n for n in notes), notes
