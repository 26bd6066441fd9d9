"""The host path of small runs (issue 24): what a one-kernel run pays besides its kernel. The
figures are scripts/bench_small_runs.py's (a benchmark, not a timed test); these tests pin the
behaviour behind them: the judge's failure messages import no sympy, a CPU judge and an
interpreter worker compute on one thread, and a run's end kills its idle judges instead of
waiting for their teardown."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading

import torch
from conftest import ROOT

from kgb import protocol as P
from kgb.judge.compare import compare_outputs, unravel
from kgb.runner.execute import worker_env
from kgb.runner.judge_pool import JudgePool
from kgb.sandbox.base import Limits
from kgb.tasks.model import Tolerance


def test_unravel_agrees_with_torch_on_every_index():
    for shape in [(3, 5), (2, 3, 4), (7,), (1, 1, 9), (4, 1, 3), (0, 3), ()]:
        n = 1
        for size in shape:
            n *= size
        for index in range(n):
            assert unravel(index, shape) == [
                int(i) for i in torch.unravel_index(torch.tensor(index), shape)]


def test_a_cpu_judge_computes_on_one_thread_and_its_failures_import_no_sympy(tmp_path):
    # torch.unravel_index imports torch.fx's symbolic shapes and sympy: seconds in the judge's
    # first failing call, and every job's ghost-replay calls fail by design. Beside a busy
    # worker a CPU judge's second torch thread only spins (docs/performance.md, session 27).
    # One process for both (each torch import is seconds); before the change: True, then 2.
    code = (
        "import sys, torch\n"
        "from kgb.judge.compare import compare_outputs\n"
        "from kgb.tasks.model import Tolerance\n"
        "import kgb.judge.__main__ as J\n"
        "ref = torch.zeros(2, 3, 4); out = ref.clone(); out[1, 2, 3] = 1.0\n"
        "r = compare_outputs([out], [ref], Tolerance(1e-5, 1e-5, 1e-5))\n"
        "print(r.passed, r.message); print('sympy' in sys.modules, flush=True)\n"
        "sys.stdin = iter(())\n"
        "J.serve(__import__('pathlib').Path(sys.argv[1]), sys.argv[2])\n"
        "print(torch.get_num_threads(), file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path), "cpu"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "2",
                               "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    verdict, imported = proc.stdout.strip().splitlines()
    assert verdict.startswith("False") and "first at [1, 2, 3]: got 1, expected 0" in verdict
    assert imported == "False"
    assert proc.stderr.strip().splitlines()[-1] == "1"


def test_the_failure_position_is_the_first_differing_element():
    ref = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)
    out = ref.clone()
    out[2, 1, 4] += 100.0
    out[2, 3, 0] += 100.0
    result = compare_outputs([out], [ref], Tolerance(1e-5, 1e-5, 1e-5))
    assert not result.passed and "first at [2, 1, 4]: got 149, expected 49" in result.message


def test_closing_the_pool_kills_its_idle_judges_and_loses_no_judgement(tmp_path):
    """At a run's end the pool kills its idle judges rather than wait for torch's teardown
    (seconds a run). Nothing is lost: a judge writes its files before it answers. A request
    for a job without outputs is judged (no case run), and its judge.json is there after the
    pool has closed; before the change the judge exited on its own (return code 0)."""
    job = tmp_path / "job"
    (job / P.OUT_DIR).mkdir(parents=True)
    task = ROOT / "tasks" / "Activation" / "relu"
    request = P.JudgeRequest(job_dir=str(job), task_dir=str(task), device="cpu", cases=(),
                             layout_inputs=(), seed_input=None, claims=(), commits=(),
                             timed_cases=(), baselines="none", graph_cases=(),
                             output_cap=1 << 20, cached=())
    pool = JudgePool(tmp_path / "refcache", tmp_path / "judges.log")
    try:
        assert pool.judge(request, 300.0, threading.Event()) == "ok"
        (judge,) = pool._idle
    finally:
        pool.close()
    assert judge._proc.returncode == -signal.SIGKILL
    assert P.read(P.JudgeResult, job / P.JUDGE_FILE, P.JUDGE_MAX_BYTES).cases == ()


def test_an_interpreter_worker_gets_one_thread_a_gpu_worker_its_cpu_share(tmp_path):
    limits = Limits(cpus=4.0)
    assert worker_env("cpu", tmp_path, limits)["OMP_NUM_THREADS"] == "1"
    assert worker_env("cuda:0", tmp_path, limits)["OMP_NUM_THREADS"] == "4"
