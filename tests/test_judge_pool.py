"""The run's trusted judges: reused while they answer, replaced after any failure, killed at
once when the run stops."""

from __future__ import annotations

import gc
import json
import shutil
import sys
import threading
import time
from types import SimpleNamespace

import psutil
import pytest

from conftest import ROOT
from kgb import protocol as P
from kgb.runner.journal import read_plan
from kgb.runner.judge_pool import JudgePool
from kgb.tasks.loader import load_task

pytestmark = pytest.mark.slow


@pytest.fixture
def finished_job(addcmul_run):
    """A real job folder (candidate outputs included) to judge again: the session's math.addcmul
    run (conftest.addcmul_run, shared with tests/test_cli_options.py); tests judge copies."""
    out, done = addcmul_run
    assert done.returncode == 0, done.stderr
    return out / "jobs" / "math.addcmul"


@pytest.fixture
def pool(tmp_path):
    pool = JudgePool(tmp_path / "refcache", tmp_path / "judges.log")
    yield pool
    pool.close()


def _copy(job, tmp_path, name):
    copy = tmp_path / name
    shutil.copytree(job, copy)
    (copy / "judge.json").unlink()
    return copy


def _request(job, task_dir=ROOT / "tasks" / "Math" / "addcmul") -> P.JudgeRequest:
    """What the host sends a judge for a job folder: the plan's cases and the worker's claims."""
    plan = read_plan(job)
    claims = P.read(P.WorkerResult, job / "out" / "result.json", P.RESULT_MAX_BYTES).cases
    task = load_task(ROOT / "tasks" / "Math" / "addcmul")
    return P.JudgeRequest(str(job), str(task_dir), "cpu", plan.cases, task.strided_inputs,
                          task.seed_input, claims)


def test_one_judge_serves_consecutive_jobs(finished_job, pool, tmp_path):
    first, second = _copy(finished_job, tmp_path, "a"), _copy(finished_job, tmp_path, "b")
    assert pool.judge(_request(first), 300, threading.Event()) == "ok"
    judge_pid = pool._idle[0].pid
    assert pool.judge(_request(second), 300, threading.Event()) == "ok"
    assert pool._idle[0].pid == judge_pid
    cases = json.loads((second / "judge.json").read_text())["cases"]
    assert cases and all(call["status"] == "passed" for c in cases for call in c["calls"])


def test_a_judge_warmed_while_the_worker_runs_is_the_one_that_judges(finished_job, pool,
                                                                     tmp_path):
    """execute reserves its device's judge before the worker starts (its torch import
    overlaps the candidate's run); the job is then judged by that process."""
    with pool.reserve("cpu") as reservation:
        assert len(pool._all) == 1
        warmed = pool._idle[0].pid
        assert pool.judge(_request(_copy(finished_job, tmp_path, "w")), 300,
                          threading.Event(), reservation=reservation) == "ok"
    assert [j.pid for j in pool._all] == [warmed]
    notes = [line for line in (tmp_path / "judges.log").read_text().splitlines()
             if line.startswith("kgb judges ")]
    assert len(notes) == 1 and f"judge {warmed} on cpu started ahead" in notes[0]


def test_the_judge_that_compiled_ahead_judges_its_job(finished_job, pool, tmp_path):
    """A job's compile-ahead request (JudgeRequest.ahead) runs on the judge reserved for it,
    which the job keeps and is judged by (the compiled reference lives in that process);
    an ahead request writes no judgement. A stopped ahead request retires its judge, and the
    judgement then borrows another; a kept judge whose job was not judged goes back idle."""
    import dataclasses

    job = _copy(finished_job, tmp_path, "ahead")
    with pool.reserve("cpu") as reservation:
        warmed = pool._idle[0].pid
        held = pool.ahead(dataclasses.replace(_request(job), claims=(), ahead=True), 300,
                          threading.Event(), None, reservation)
        assert held is not None and held.pid == warmed and pool._idle == []
        assert not (job / "judge.json").exists()  # compiles only: nothing judged
        assert pool.judge(_request(job), 300, threading.Event(), reservation=reservation,
                          held=held) == "ok"
    assert [j.pid for j in pool._all] == [warmed] and pool._idle[0].pid == warmed
    assert json.loads((job / "judge.json").read_text())["cases"]
    stop = threading.Event()
    stop.set()
    with pool.reserve("cpu") as reservation:
        assert pool.ahead(dataclasses.replace(_request(job), ahead=True), 300, stop, None,
                          reservation) is None
    assert warmed not in [j.pid for j in pool._all]  # retired (killed), never reused
    kept = pool.ahead(dataclasses.replace(_request(job), ahead=True), 300, threading.Event(),
                      None, None)
    assert kept is not None and pool._idle == []
    pool.give_back(kept)
    assert pool._idle == [kept]


def test_each_job_in_flight_has_a_judge_started_ahead_and_none_more(finished_job, pool,
                                                                     tmp_path):
    """--jobs N slots of one device finish close together: each job in flight has a spare
    judge of its own (one started ahead for them all left the others starting theirs at
    need, seconds each); a job whose reservation ends unjudged frees its claim, and an idle
    judge covers the next reservation without a new process."""
    with pool.reserve("cpu") as first, pool.reserve("cpu"):
        assert len(pool._all) == 2 and len(pool._idle) == 2
        assert pool.judge(_request(_copy(finished_job, tmp_path, "a")), 300,
                          threading.Event(), reservation=first) == "ok"
        assert len(pool._idle) == 2  # the judge came back; the second job's is still spare
    with pool.reserve("cpu"):  # two idle judges, one claim: nothing started
        assert len(pool._all) == 2
    with pool.reserve("cpu"), pool.reserve("cpu"), pool.reserve("cpu"):
        assert len(pool._all) == 3  # three claims, two spare: one more
    assert pool._waiting == {"cpu": 0}
    notes = (tmp_path / "judges.log").read_text()
    assert notes.count("started ahead") == 3 and "started at need" not in notes


def test_a_judge_that_fails_is_replaced(finished_job, pool, tmp_path):
    broken = _copy(finished_job, tmp_path, "broken")
    assert pool.judge(_request(broken, tmp_path / "no-such-task"), 300,
                      threading.Event()) == "error"
    assert "TaskError" in (broken / "judge.log").read_text()
    assert pool._idle == []
    # the verdict names the judge's failure (kgb's side), not a bare "not judged"
    from kgb.runner.grade import grade

    verdict = grade(broken, tmp_path).verdict
    assert verdict.verdict == "unverified"
    assert "the reference worker failed: " in verdict.message and "TaskError" in verdict.message
    good = _copy(finished_job, tmp_path, "good")
    assert pool.judge(_request(good), 300, threading.Event()) == "ok"


@pytest.mark.parametrize("how", ["cancelled", "timeout"])
def test_a_stopped_judge_is_killed_at_once(finished_job, pool, tmp_path, how):
    job = _copy(finished_job, tmp_path, how)
    cancel = threading.Event()
    if how == "cancelled":
        cancel.set()
    before = {p.pid for p in psutil.Process().children()}
    assert pool.judge(_request(job), 0.0 if how == "timeout" else 300, cancel) == how
    alive = [p for p in psutil.Process().children() if p.pid not in before and p.is_running()
             and p.status() != psutil.STATUS_ZOMBIE]
    assert alive == [] and pool._idle == []
    assert not (job / "judge.json").exists()


def test_a_reference_printing_to_stdout_cannot_fake_an_answer(finished_job, pool, tmp_path,
                                                              monkeypatch):
    """Only the judge's answer line travels on its stdout channel."""
    task = tmp_path / "task"
    shutil.copytree(ROOT / "tasks" / "Math" / "addcmul", task)
    reference = task / "reference.py"
    reference.write_text("print('error')\nimport os\nos.write(1, b'ok\\n')\n" +
                         reference.read_text())
    job = _copy(finished_job, tmp_path, "noisy")
    assert pool.judge(_request(job, task), 300, threading.Event()) == "ok"
    assert (job / "judge.json").is_file()  # the answer came after the work, not before
    after = _copy(finished_job, tmp_path, "after")
    assert pool.judge(_request(after), 300, threading.Event()) == "ok"
    assert (after / "judge.json").is_file()
    assert "error" in (tmp_path / "judges.log").read_text()


class _Bound(Exception):
    pass


def test_a_gpu_judge_makes_its_jobs_gpu_current_before_anything_else(finished_job, tmp_path,
                                                                     monkeypatch):
    """Events, synchronize and the timing spin follow the current device, not the inputs':
    a judge for cuda:2 left on cuda:0 timed its baselines on an idle stream (session 23)."""
    import dataclasses

    import torch

    from kgb.judge.judge import judge_job

    bound: list[str] = []

    def set_device(device) -> None:
        bound.append(str(device))
        raise _Bound  # nothing CUDA can run on this machine: stop at the first step

    monkeypatch.setattr(torch.cuda, "set_device", set_device)
    job = _copy(finished_job, tmp_path, "gpu")
    with pytest.raises(_Bound):
        judge_job(dataclasses.replace(_request(job), device="cuda:2"), tmp_path / "cache")
    assert bound == ["cuda:2"]
    try:
        judge_job(_request(job), tmp_path / "cache")  # a CPU judge binds nothing
    finally:  # the task's modules must not outlive the test (test_zones hunts for them)
        for name in ("kgb_task_reference", "kgb_task_inputs"):
            sys.modules.pop(name, None)
        gc.collect()
    assert bound == ["cuda:2"]
    assert (job / "judge.json").is_file()


def test_judges_are_recycled_after_a_number_of_jobs(finished_job, pool, tmp_path, monkeypatch):
    """Warm slots (issue 24): a judge serves RECYCLE_JOBS jobs, then a fresh process."""
    from kgb.runner import judge_pool

    monkeypatch.setattr(judge_pool, "RECYCLE_JOBS", 2)
    pids = []
    for name in "abc":
        assert pool.judge(_request(_copy(finished_job, tmp_path, name)), 300,
                          threading.Event()) == "ok"
        pids.append(pool._idle[0].pid if pool._idle else None)
    assert pids[0] is not None and pids[1] is None  # retired after its second job
    assert pids[2] not in (None, pids[0])
    log = (tmp_path / "judges.log").read_text()
    assert f"judge {pids[0]} on cpu retired after 2 job(s): recycled" in log
    assert log.count("started at need (none idle)") == 2  # the first judge and its successor


def test_a_judge_whose_canary_fails_answers_then_retires(pool, monkeypatch):
    """A GPU judge's canary (memory back to zero, a known product) failing after a job: the
    job's judgement stands ("ok"), the judge is not reused."""
    from kgb.runner import judge_pool

    class Canaried:
        device, jobs, pid, closed = "cuda:0", 0, 1, False

        def judge(self, request, timeout_s, cancel, share=None):
            return "ok retire"

        def close(self, kill=False):
            Canaried.closed = True

    monkeypatch.setattr(pool, "_borrow", lambda device, reservation=None:
                        pool._all.append(Canaried()) or pool._all[-1])
    assert pool.judge(SimpleNamespace(device="cuda:0"), 10, threading.Event()) == "ok"
    assert pool._idle == [] and Canaried.closed


def test_the_canary_fails_on_leaked_memory_and_on_errors(monkeypatch):
    import torch

    from kgb.judge import __main__ as judge_main

    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda device: 4096)
    assert not judge_main.canary_holds("cuda:0")
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda device: 0)
    assert not judge_main.canary_holds("cuda:0")  # no GPU here: the computation raises


def test_the_canarys_own_gemm_workspace_is_no_leak(monkeypatch):
    """The canary's matmul makes cuBLAS's workspace (kept by torch) in a judge whose job had
    no GEMM: that is not the job's leak, and the judge is kept (run 24: 24 of 25 judges were
    retired after one job). A tensor the job left behind still retires it."""
    import torch

    from kgb.judge import __main__ as judge_main

    state = {"live": 1000, "workspace": 0}

    def gemm(device):
        state["workspace"] = 4096  # what cuBLAS's first matmul on a stream keeps
        return judge_main.canary_expected()

    def clear():
        state["workspace"] = 0

    monkeypatch.setattr(torch.cuda, "memory_allocated",
                        lambda device: state["live"] + state["workspace"])
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    monkeypatch.setattr(judge_main, "canary_sum", gemm)
    monkeypatch.setattr(torch._C, "_cuda_clearCublasWorkspaces", clear, raising=False)
    steady = judge_main.held_memory("cuda:0")
    assert steady == 1000 and judge_main.canary_holds("cuda:0", steady)
    state["live"] = 1000 + 512  # a tensor of the job's still alive
    assert not judge_main.canary_holds("cuda:0", steady)


def test_a_judge_that_will_compile_imports_dynamo_before_its_first_request(finished_job,
                                                                         pool, tmp_path):
    """A pool whose judges will torch.compile references (`compiles`: a GPU run timing both
    baselines) starts each with `compile`, so dynamo and inductor are imported before its
    first request, beside the worker, and it serves jobs as any other."""
    pool.compiles = True
    with pool.reserve("cpu") as reservation:
        judge = pool._idle[0]
        assert _argv(judge.pid)[-1] == "compile"
        assert pool.judge(_request(_copy(finished_job, tmp_path, "c")), 300,
                          threading.Event(), reservation=reservation) == "ok"
    pool.compiles = False
    pool.prestart("cpu")
    assert _argv(pool._idle[-1].pid)[-1] == "cpu"


def _argv(pid):
    """A just-started judge's argv. Popen returns once the child's exec has begun, and until
    the kernel has set up the new program's arguments /proc/PID/cmdline reads empty (CI saw
    it once): wait for them instead of indexing an empty list."""
    deadline = time.monotonic() + 10
    while not (argv := psutil.Process(pid).cmdline()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return argv


def test_an_output_file_safetensors_cannot_parse_is_a_failed_call_not_a_judge_error(
        finished_job, pool, tmp_path):
    """The worker's files are the candidate's to write: one whose header safetensors refuses
    (its own error type, no OSError or ValueError) is that call's `unreadable outputs`, and
    the judgement stands — never the judge's error, which would turn a wrong answer into an
    infrastructure failure."""
    job = _copy(finished_job, tmp_path, "garbled")
    target = sorted((job / "out").glob("case_*_call_0.safetensors"))[0]
    target.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00" + b'{"out0":1}      ' + b"x" * 64)
    assert pool.judge(_request(job), 300, threading.Event()) == "ok"
    judged = json.loads((job / "judge.json").read_text())
    messages = [call["message"] for case in judged["cases"] for call in case["calls"]]
    assert any(m.startswith("unreadable outputs") for m in messages), messages
