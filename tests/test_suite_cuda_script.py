"""scripts/gpu/suite_cuda.sh (issue 27): the whole-suite GPU check split into chunks of device
calls. On the CPU: its DRY mode (the chunks partition the suite, sorted by id, striped; the kgb
command has the flags the GPU check needs; a bad CHUNK is one line and exit 2) and its merge
step (several calls' state files -> one table; a later call's verdict wins; tasks no call
finished are listed; two GPU models are refused)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import tarfile
from pathlib import Path

from conftest import ROOT

from kgb.tasks.index import index_suite

SCRIPT = ROOT / "scripts" / "gpu" / "suite_cuda.sh"


def _script(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "PY": str(ROOT / ".venv" / "bin" / "python"),
            "OUT": str(tmp_path / "out"), **env}
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                          env=full, timeout=120, cwd=ROOT)


def test_dry_chunks_partition_the_suite_and_name_the_gpu_flags(tmp_path):
    ids = sorted(index_suite(ROOT / "tasks").ids())
    seen: list[str] = []
    for i in range(1, 6):
        done = _script(tmp_path, DRY="1", CHUNK=f"{i}/5")
        assert done.returncode == 0, done.stderr
        command = next(line for line in done.stdout.splitlines() if " -m kgb.cli " in line)
        chunk = command.split(" --only ")[1].split()[0].split(",")
        assert chunk == ids[i - 1::5]
        seen += chunk
        for flag in ("suite check", "--device cuda", "--sandbox bwrap", "--timing off",
                     "--jobs 10", "--devices 0", f"--out /tmp/suite-gpu/chunk-{i}-of-5"):
            assert flag in command, flag
        assert "state: none" in done.stdout
    assert sorted(seen) == ids and len(seen) == len(set(seen))


def test_a_bad_chunk_is_one_line_and_exit_2(tmp_path):
    for chunk in ("", "0/4", "5/4", "a/b", "3"):
        done = _script(tmp_path, DRY="1", CHUNK=chunk)
        assert done.returncode == 2, (chunk, done.stdout, done.stderr)
        assert done.stdout.strip().count("\n") == 0 and "1 <= i <= n" in done.stdout


def _job(task: str, verdict: str, passed: int) -> dict:
    return {"task": task, "category": task.split(".")[0].capitalize(), "verdict": verdict,
            "coverage": {"cases": 36, "passed": passed},
            "message": None if verdict == "passed" else "output 0: 3 elements outside"}


def _state(path: Path, jobs: list[dict], device: str = "NVIDIA H100 80GB HBM3",
           seed: int = 1, timing: str = "off") -> Path:
    report = {"seed": seed, "environment": {"device_name": device, "kgb": "0.1.0",
                                            "torch": "2.11", "triton": "3.6",
                                            "sandbox": {"backend": "bwrap"}, "timing": timing},
              "summary": {}, "jobs": jobs}
    data = json.dumps(report).encode()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("run/report.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


def test_merge_builds_one_table_later_calls_win_and_lists_what_is_left(tmp_path):
    a1 = _state(tmp_path / "a1.tar.gz", [_job("matmul.matmul", "passed", 36),
                                         _job("spatial.roll", "missing", 0)], seed=1)
    a2 = _state(tmp_path / "a2.tar.gz", [_job("matmul.matmul", "passed", 36),
                                         _job("spatial.roll", "incorrect", 34)], seed=2)
    b = _state(tmp_path / "b.tar.gz", [_job("activation.relu", "passed", 36)], seed=3)
    done = _script(tmp_path, str(a1), str(a2), str(b), STEP="merge")
    assert done.returncode == 0, done.stderr
    rows = {line.split(" | ")[0][2:]: line for line in done.stdout.splitlines()
            if line.startswith("| ") and "." in line.split(" | ")[0]}
    assert set(rows) == {"matmul.matmul", "spatial.roll", "activation.relu"}
    assert "| incorrect | 34/36 |" in rows["spatial.roll"]
    assert "2 of 3 tasks correct" in done.stdout
    total = len(index_suite(ROOT / "tasks").ids())
    assert f"3 of {total} tasks have a verdict; not finished yet ({total - 3}):" in done.stdout
    # a later call's verdict replaces an earlier one's (a re-run after a fix); a call whose kgb
    # wrote no report (stopped before it) is skipped, said on stderr
    fixed = _state(tmp_path / "a3.tar.gz", [_job("spatial.roll", "passed", 36)], seed=4)
    bare = tmp_path / "a4.tar.gz"
    with tarfile.open(bare, "w:gz") as tar:
        info = tarfile.TarInfo("chunk")
        info.size = 4
        tar.addfile(info, io.BytesIO(b"1/8\n"))
    done = _script(tmp_path, str(a2), str(b), str(fixed), str(bare), STEP="merge")
    assert done.returncode == 0 and "3 of 3 tasks correct" in done.stdout
    assert "a4.tar.gz: no report" in done.stderr


def test_merge_refuses_two_gpu_models_and_files_without_a_report(tmp_path):
    h100 = _state(tmp_path / "h.tar.gz", [_job("matmul.matmul", "passed", 36)])
    h200 = _state(tmp_path / "g.tar.gz", [_job("spatial.roll", "passed", 36)],
                  device="NVIDIA H200")
    done = _script(tmp_path, str(h100), str(h200), STEP="merge")
    assert done.returncode != 0 and "different devices" in done.stderr
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not a tar")
    done = _script(tmp_path, str(junk), STEP="merge")
    assert done.returncode != 0 and "not a state file" in done.stderr
    assert "Traceback" not in done.stderr


def test_mixed_joins_correctness_checks_of_two_models_naming_each_rows(tmp_path):
    h100 = _state(tmp_path / "h.tar.gz", [_job("matmul.matmul", "incorrect", 30),
                                          _job("spatial.roll", "passed", 36)])
    h200 = _state(tmp_path / "g.tar.gz", [_job("matmul.matmul", "passed", 36)],
                  device="NVIDIA H200")
    done = _script(tmp_path, str(h100), str(h200), STEP="merge", MIXED="1")
    assert done.returncode == 0, done.stderr
    assert "NVIDIA H100 80GB HBM3 and NVIDIA H200" in done.stdout
    rows = {line.split(" | ")[0][2:]: line for line in done.stdout.splitlines()
            if line.startswith("| ") and "." in line.split(" | ")[0]}
    assert "| passed |" in rows["matmul.matmul"] and rows["matmul.matmul"].endswith(
        " NVIDIA H200 |")  # the later call's verdict, and the model that gave it
    assert rows["spatial.roll"].endswith(" NVIDIA H100 80GB HBM3 |")
    assert "| GPU |" in done.stdout and "2 of 2 tasks correct" in done.stdout


def test_mixed_refuses_a_timed_report(tmp_path):
    h100 = _state(tmp_path / "h.tar.gz", [_job("spatial.roll", "passed", 36)], timing="on")
    h200 = _state(tmp_path / "g.tar.gz", [_job("matmul.matmul", "passed", 36)],
                  device="NVIDIA H200")
    done = _script(tmp_path, str(h100), str(h200), STEP="merge", MIXED="1")
    assert done.returncode != 0 and "correctness checks only" in done.stderr
    assert "Traceback" not in done.stderr
