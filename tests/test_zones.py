"""The trust boundary as a reader of the tree sees it (design.md, Layout): the worker's real
import closure holds nothing trusted, and the judge's holds nothing of the worker."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from kgb import protocol as P
from kgb.jsonfiles import write_json_atomic

# What may be imported next to the candidate: the worker itself and the neutral modules.
WORKER_MAY_IMPORT = re.compile(
    r"^kgb(\.worker(\..*)?|\.protocol|\.jsonfiles|\.errors|\.encoding|\.tasks|\.tasks\.inputs"
    r"|\.tasks\.casegen|\.bench|\.bench\.(channel|l2|profiler|timer))?$")


def _imported(stderr: str) -> set[str]:
    """Module names from `python -X importtime` output."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def _worker_job(tmp_path: Path) -> Path:
    job_dir = tmp_path / "job"
    out = job_dir / P.OUT_DIR
    out.mkdir(parents=True)
    shutil.copyfile(ROOT / "tasks/Math/addcmul/inputs.py", job_dir / P.TASK_INPUTS_FILE)
    spec = P.JobSpec(
        task_id="math.addcmul", inputs_path=str(job_dir / P.TASK_INPUTS_FILE), layout_inputs=(),
        seed_input=None, kernel_path=str(ROOT / "tasks/Math/addcmul/solution.py"), entry="run",
        device="cpu", interpreter=True, out_dir=str(out),
        cases=(P.CaseSpec("tiny", "tiny", {"M": 3, "N": 5}, "float32", "standard", "contiguous",
                          (P.CallSpec(P.CallKind.PRIMARY, 1),)),))
    write_json_atomic(job_dir / P.JOB_FILE, P.to_json(spec))
    return job_dir


def test_the_worker_imports_nothing_trusted(tmp_path):
    job_dir = _worker_job(tmp_path)
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "kgb.worker", str(job_dir)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    result = P.read(P.WorkerResult, job_dir / P.OUT_DIR / P.RESULT_FILE, P.RESULT_MAX_BYTES)
    assert result.stage == "done" and result.cases[0].calls[0].status == "returned", proc.stderr
    kgb_modules = {m for m in _imported(proc.stderr) if m == "kgb" or m.startswith("kgb.")}
    assert "kgb.worker.main" in kgb_modules  # the closure really was measured
    trusted = sorted(m for m in kgb_modules if not WORKER_MAY_IMPORT.match(m))
    assert trusted == [], f"the worker imported trusted modules: {trusted}"


def test_the_judge_imports_nothing_of_the_worker():
    code = "import kgb.judge.__main__, kgb.judge.judge, kgb.judge.compare"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    names = _imported(proc.stderr)
    assert "kgb.judge.judge" in names
    assert not [m for m in names if m.startswith("kgb.worker")]


def test_the_worker_modules_are_not_reachable_by_name_from_the_candidate(tmp_path):
    """After start-up the running worker's modules are out of sys.modules: a kernel that looks
    for them by name finds nothing to patch."""
    job_dir = _worker_job(tmp_path)
    kernel = tmp_path / "k.py"
    kernel.write_text((ROOT / "tasks/Math/addcmul/solution.py").read_text() + '''
import sys as _sys
_seen = sorted(m for m in _sys.modules if m.startswith("kgb.worker."))
if _seen:
    raise RuntimeError(f"worker modules reachable: {_seen}")
''')
    spec = P.read(P.JobSpec, job_dir / P.JOB_FILE, 1 << 20)
    from dataclasses import replace

    write_json_atomic(job_dir / P.JOB_FILE, P.to_json(replace(spec, kernel_path=str(kernel))))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-m", "kgb.worker", str(job_dir)], capture_output=True,
                   text=True, timeout=300, env=env, cwd=tmp_path)
    result = P.read(P.WorkerResult, job_dir / P.OUT_DIR / P.RESULT_FILE, P.RESULT_MAX_BYTES)
    assert result.error is None, result.error
    assert result.stage == "done"


def test_the_oracle_hunter_would_find_a_loaded_reference():
    """The hostile fixture that proves the reference is absent from the worker must be able to
    find it where it is present (here: this test process, after loading one)."""
    # A fresh interpreter: a test process (an xdist worker) may hold other tests' references.
    code = f"""
from kgb.tasks.casegen import load_module
hunter = load_module({str(ROOT / "tests/fixtures/hostile/kernels/oracle_in_process.py")!r},
                     "kgb_test_hunter")
assert hunter._hunt() is None, "found a reference before any was loaded"
load_module({str(ROOT / "tasks/Normalization/rms_norm/reference.py")!r}, "kgb_task_reference")
found = hunter._hunt()
assert found is not None and found.__name__ == "reference", found
print("found")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.strip() == "found", proc.stderr[-2000:]
