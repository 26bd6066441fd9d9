"""The job scheduler: one job per slot at a time, results in plan order, a failing job stops
the run without losing the finished ones; `--jobs` and `--devices` are checked."""

from __future__ import annotations

import dataclasses

import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import ROOT
from kgb.errors import BadInput, InfraError
from kgb.runner import schedule
from kgb.runner.execute import JobCancelled, JobContext
from kgb.runner.plan import Job
from kgb import protocol as P
from kgb.runner.verify import resolve_slots
from kgb.sandbox.base import Limits
from kgb.tasks.loader import load_suite

SUITE = load_suite(ROOT / "tasks")


class Progress:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def start(self, name: str) -> None:
        pass

    def done(self, name: str, verdict: str) -> None:
        self.lines.append(f"{name}: {verdict}")


def jobs(n: int) -> list[Job]:
    return [Job(task, None, (), "cpu") for task in sorted(SUITE.values(), key=lambda t: t.id)[:n]]


def context() -> JobContext:
    return JobContext("t", Path("/nonexistent"), None, Limits(), Path("/nonexistent"), None)


def fake_jobs(monkeypatch, run) -> list:
    """Stand-ins for execute's prepare/finish/abandon: `run(job, ctx)` plays the job (at
    finish); returns the jobs abandoned."""
    abandoned: list = []
    monkeypatch.setattr(schedule, "prepare_job", lambda job, ctx: SimpleNamespace(job=job))
    monkeypatch.setattr(schedule, "finish_job", lambda prepared, ctx: run(prepared.job, ctx))
    monkeypatch.setattr(schedule, "abandon_job", lambda prepared: abandoned.append(prepared.job))
    return abandoned


def record(verdict: str = "passed", device: str = "cpu") -> P.JobRecord:
    return P.JobRecord(P.VerdictRecord(P.Verdict(verdict)), P.JobFacts("jobs/x", device))


def test_each_slot_runs_one_job_at_a_time_and_results_keep_plan_order(monkeypatch):
    spans: list[tuple[str, str, float, float]] = []
    lock = threading.Lock()

    def fake_run_job(job, ctx):
        start = time.monotonic()
        time.sleep(0.05 * (1 + len(job.task.id) % 3))  # finish out of plan order
        with lock:
            spans.append((job.device, job.task.id, start, time.monotonic()))
        return record(device=job.device)

    fake_jobs(monkeypatch, fake_run_job)
    planned = jobs(9)
    outcome = schedule.run_all(planned, ("cuda:0", "cuda:1", "cuda:2"), context(), Progress(),
                               reuse=lambda job: None)
    assert [job.task.id for job, _ in outcome.results] == [j.task.id for j in planned]
    ran_on = {task: device for device, task, _, _ in spans}
    assert all(rec.facts.device == ran_on[job.task.id] for job, rec in outcome.results)
    assert outcome.failure is None and outcome.interrupted is None
    for slot in ("cuda:0", "cuda:1", "cuda:2"):
        mine = sorted((s, e) for d, _, s, e in spans if d == slot)
        assert mine, f"{slot} ran nothing"
        assert all(end <= nxt for (_, end), (nxt, _) in zip(mine, mine[1:])), f"{slot} overlapped"
    busy = max(sum(s <= t < e for _, _, s, e in spans) for _, _, t, _ in spans)
    assert busy == 3


def test_a_failing_job_cancels_the_rest_and_keeps_what_finished(monkeypatch):
    started: list[str] = []

    def fake_run_job(job, ctx):
        started.append(job.task.id)
        if len(started) == 2:
            raise InfraError("the judge crashed")
        if ctx.cancel.is_set():
            raise JobCancelled(job.task.id)
        return record()

    fake_jobs(monkeypatch, fake_run_job)
    ctx = context()
    outcome = schedule.run_all(jobs(6), ("cpu",), ctx, Progress(), reuse=lambda job: None)
    assert outcome.failure is not None and "judge crashed" in outcome.failure.message
    assert ctx.cancel.is_set()
    assert len(outcome.results) == 1 and len(started) == 2  # nothing started after the failure


def test_a_kgb_bug_in_a_job_is_an_infrastructure_failure_not_a_traceback(monkeypatch):
    fake_jobs(monkeypatch, lambda job, ctx: 1 / 0)
    outcome = schedule.run_all(jobs(2), ("cpu",), context(), Progress(), reuse=lambda job: None)
    assert outcome.failure is not None and "ZeroDivisionError" in outcome.failure.message


def test_resumed_jobs_are_not_run_again(monkeypatch):
    ran: list[str] = []
    fake_jobs(monkeypatch, lambda job, ctx: ran.append(job.task.id) or record())
    planned = jobs(3)
    kept = planned[1].task.id
    progress = Progress()
    outcome = schedule.run_all(planned, ("cpu", "cpu"), context(), progress,
                               reuse=lambda job: record("incorrect")
                               if job.task.id == kept else None)
    assert kept not in ran and len(ran) == 2
    assert [r.verdict.verdict for _, r in outcome.results] == ["passed", "incorrect", "passed"]
    assert f"{kept}: incorrect (resumed)" in progress.lines


@pytest.mark.parametrize("device, devices, n, message", [
    ("cpu", "0", 1, "--devices applies to GPU runs"),
    ("cpu", None, 0, "--jobs 0"),
    ("cuda:0", "7", 1, "--devices 7"),
    ("cuda:0", "x", 1, "give GPU indices"),
])
def test_bad_slot_options_are_one_line_errors(device, devices, n, message):
    with pytest.raises(BadInput, match=message):
        resolve_slots(device, devices, n)


def test_cpu_slots():
    assert resolve_slots("cpu", None, 3) == ("cpu", "cpu", "cpu")


def test_untimed_gpu_runs_take_several_jobs_per_gpu_spread_over_the_gpus(monkeypatch):
    """A whole-suite correctness check on a GPU (--timing off) runs N jobs per GPU; a timed
    run with --jobs N does too, every GPU with more than one slot getting its timing lock
    (kgb/runner/gpu_share.py), so no job's timings share a GPU."""
    from kgb.runner.gpu_share import Shares

    import torch

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert resolve_slots("cuda:0", None, 3, timing=False) == ("cuda:0",) * 3
    assert resolve_slots("cuda:0", "all", 2, timing=False) == ("cuda:0", "cuda:1") * 2
    assert resolve_slots("cuda:0", "all", 1) == ("cuda:0", "cuda:1")
    timed = resolve_slots("cuda:0", "all", 2)
    assert timed == ("cuda:0", "cuda:1") * 2
    shares = Shares.for_slots(timed)
    assert shares.get("cuda:0") is not None and shares.get("cuda:1") is not None
    assert shares.get("cuda:0") is not shares.get("cuda:1")
    assert Shares.for_slots(("cuda:0", "cuda:1")).by_device == ()  # one job per GPU: no lock
    assert Shares.for_slots(("cpu",) * 3).by_device == ()  # the interpreter times nothing


def test_several_slots_start_the_heaviest_jobs_first_and_report_in_plan_order(monkeypatch):
    """Longest job first (issue 24): a heavy job started last holds the run's tail alone."""
    from kgb.runner.plan import plan_cases
    from kgb.submission import Kernel

    ids = ["math.addcmul", "matmul.matmul", "activation.relu"]
    planned = [Job(SUITE[t], Kernel(t, "k.py", Path("/k.py")), plan_cases(SUITE[t], "cpu", 1),
                   "cpu") for t in ids]
    weights = {j.task.id: schedule.job_weight(j) for j in planned}
    assert len(set(weights.values())) == 3 and min(weights.values()) > 0
    started: list[str] = []
    lock = threading.Lock()

    def fake(job, ctx):
        with lock:
            started.append(job.task.id)
        time.sleep(0.1)  # a job lasts longer than a thread's start (jobs take seconds)
        return P.JobRecord(P.VerdictRecord(P.Verdict.PASSED), P.JobFacts("x", job.device))

    fake_jobs(monkeypatch, fake)
    outcome = schedule.run_all(planned, ("cpu", "cpu"), context(), Progress(),
                               reuse=lambda job: None)
    heaviest = sorted(ids, key=weights.__getitem__, reverse=True)
    assert set(started[:2]) == set(heaviest[:2])
    assert started[-1] == heaviest[-1]
    assert [job.task.id for job, _ in outcome.results] == ids


def test_a_batch_starts_one_job_of_each_task_before_any_second_one():
    """Four submissions answering the same tasks: the heaviest task's four jobs no longer
    start side by side (each measuring the baselines and references its task's first job
    stores for the others); one of each task goes first, longest first, then the rest,
    longest first. A shard is a task of its own here: its cases' baselines are its own."""
    from kgb.runner.plan import plan_cases
    from kgb.submission import Kernel

    ids = ["math.addcmul", "matmul.matmul", "activation.relu"]
    one = {t: Job(SUITE[t], Kernel(t, "k.py", Path("/k.py")), plan_cases(SUITE[t], "cpu", 1),
                  "cpu") for t in ids}
    by_weight = sorted(ids, key=lambda t: schedule.job_weight(one[t]), reverse=True)
    works = [(i, one[t], None) for i, t in enumerate(ids * 3)]  # three members, plan order
    order = [job.task.id for _, job, _ in schedule.board_order(works)]
    assert order[:3] == by_weight and order[3:] == [t for t in by_weight for _ in range(2)]
    started: list[str] = []
    lock = threading.Lock()

    def fake(job, ctx):
        with lock:
            started.append(job.task.id)
        time.sleep(0.1)
        return P.JobRecord(P.VerdictRecord(P.Verdict.PASSED), P.JobFacts("x", job.device))

    with pytest.MonkeyPatch.context() as monkeypatch:
        fake_jobs(monkeypatch, fake)
        schedule.run_all([job for _, job, _ in works], ("cpu", "cpu"), context(), Progress(),
                         reuse=lambda job: None)
    assert sorted(started[:2]) == sorted(by_weight[:2])  # not the heaviest task twice
    shards = [(i, dataclasses.replace(one["matmul.matmul"], shard=(i // 2, 2)), None)
              for i in range(4)]  # two members' two shards of one task
    assert [j.shard for _, j, _ in schedule.board_order(shards)] == \
        [(0, 2), (1, 2), (0, 2), (1, 2)]


def test_a_slot_prepares_its_next_job_while_the_current_one_runs(monkeypatch):
    """Warm slots (issue 24): job k+1's sandbox starts (execute.prepare_job) while job k runs,
    each job is prepared and finished once; with --warm off a job is prepared at its turn."""
    for warm in (True, False):
        events: list[tuple[str, str]] = []
        lock = threading.Lock()

        def prepare(job, ctx):
            with lock:
                events.append(("prepare", job.task.id))
            return SimpleNamespace(job=job)

        def finish(prepared, ctx):
            with lock:
                events.append(("start", prepared.job.task.id))
            time.sleep(0.2)  # the prepare of the next job runs meanwhile
            with lock:
                events.append(("end", prepared.job.task.id))
            return record()

        monkeypatch.setattr(schedule, "prepare_job", prepare)
        monkeypatch.setattr(schedule, "finish_job", finish)
        ctx = context()
        object.__setattr__(ctx, "warm", warm)
        planned = jobs(3)
        outcome = schedule.run_all(planned, ("cpu",), ctx, Progress(), reuse=lambda job: None)
        ids = [j.task.id for j in planned]
        assert [job.task.id for job, _ in outcome.results] == ids
        assert sorted(t for kind, t in events if kind == "prepare") == sorted(ids)
        assert sorted(t for kind, t in events if kind == "end") == sorted(ids)
        second_prepared = events.index(("prepare", ids[1]))
        first_ended = events.index(("end", ids[0]))
        assert (second_prepared < first_ended) is warm, events


def test_a_stopping_run_abandons_the_jobs_it_prepared_ahead(monkeypatch):
    def fail_first(job, ctx):
        raise InfraError("the judge crashed")

    abandoned = fake_jobs(monkeypatch, fail_first)
    ctx = context()
    planned = jobs(3)
    outcome = schedule.run_all(planned, ("cpu",), ctx, Progress(), reuse=lambda job: None)
    assert outcome.failure is not None and not outcome.results
    assert [j.task.id for j in abandoned] == [planned[1].task.id]  # prepared ahead, never run


def test_an_idle_slot_takes_another_slots_prepared_job_at_the_tail(monkeypatch):
    """At the run's tail a free slot does not wait for a busy one: it takes the job prepared
    for that slot, abandoning the sandbox held for the other GPU and preparing it again."""
    abandoned = fake_jobs(monkeypatch, lambda job, ctx: record())
    planned = jobs(2)
    ctx = context()
    pending = [(0, planned[0], ctx), (1, planned[1], ctx)]
    board = schedule._Board(pending, ctx.cancel, ("cuda:0", "cuda:1"))
    assert board.take(0)[0] == 0
    assert board.prepare_next(0) is None  # slot 1 has no job yet: the next one is its
    board.fresh.clear()
    board.prepare_next(0).join()  # job 1, prepared for cuda:0
    index, job, job_ctx, prepared = board.take(1)
    assert index == 1 and prepared is None and job_ctx is ctx
    assert [(j.task.id, j.device) for j in abandoned] == [(planned[1].task.id, "cuda:0")]
    assert board.take(0) is None and board.take(1) is None
    board = schedule._Board(pending, ctx.cancel, ("cpu", "cpu"))
    board.take(0)
    board.fresh.clear()
    board.prepare_next(0).join()
    index, job, job_ctx, prepared = board.take(1)  # another CPU slot: the same device, kept
    assert index == 1 and prepared is not None and len(abandoned) == 1


def test_a_batch_board_runs_each_job_with_its_own_runs_context(monkeypatch):
    """run_works (a batch's members on one board): every job gets its member's context, all
    members' jobs share the slots, results come back in the order given; contexts that do not
    share one cancel event are refused (a stop must reach every member)."""
    seen: list[tuple[str, str]] = []
    lock = threading.Lock()

    def play(job, ctx):
        with lock:
            seen.append((job.task.id, ctx.run_id))
        return record()

    fake_jobs(monkeypatch, play)
    cancel = threading.Event()
    a = dataclasses.replace(context(), run_id="a", cancel=cancel)
    b = dataclasses.replace(context(), run_id="b", cancel=cancel)
    planned = jobs(3)
    works = [(planned[0], a), (planned[1], a), (planned[2], b)]
    outcome = schedule.run_works(works, ("cpu", "cpu"), cancel, Progress(),
                                 reuse=lambda work: None)
    assert [job for job, _ in outcome.results] == planned
    assert sorted(seen) == sorted([(planned[0].task.id, "a"), (planned[1].task.id, "a"),
                                   (planned[2].task.id, "b")])
    with pytest.raises(ValueError, match="cancel"):
        schedule.run_works([(planned[0], a), (planned[1], context())], ("cpu",), cancel,
                           Progress(), reuse=lambda work: None)


def test_warm_slots_are_on_where_they_pay(monkeypatch):
    """--warm auto: on for GPU slots, and on the CPU only with two CPUs per slot (interpreter
    jobs that fill the machine gain nothing from imports done beside them)."""
    import os

    from kgb.runner.verify import warm_pays

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert warm_pays("cuda", ("cuda:0", "cuda:1", "cuda:2"))
    assert warm_pays("cpu", ("cpu",)) and not warm_pays("cpu", ("cpu", "cpu"))
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert warm_pays("cpu", ("cpu",) * 8) and not warm_pays("cpu", ("cpu",) * 9)


def test_a_gpu_jobs_cpu_share_is_the_hosts_cores_over_its_slots():
    """The autotune pre-compile runs on the job's CPU share: on GPU runs the default grows to
    cores / slots (16 cores, 1 GPU: 16; 4 GPUs: 4), never below the default; an explicit
    --limit cpus and interpreter runs keep theirs."""
    from kgb.runner.verify import fit_cpus_to_gpu_slots

    base = Limits()
    assert fit_cpus_to_gpu_slots(base, ("cuda:0",), (), 16).cpus == 16
    assert fit_cpus_to_gpu_slots(base, ("cuda:0",) * 4, (), 16).cpus == 4
    assert fit_cpus_to_gpu_slots(base, ("cuda:0",) * 4, (), 4).cpus == base.cpus
    assert fit_cpus_to_gpu_slots(base, ("cuda:0",), ("cpus=3",), 16) == base
    assert fit_cpus_to_gpu_slots(base, ("cpu", "cpu"), (), 16) == base


def _outgrew() -> P.JobRecord:
    """Unverified: a case's outputs did not fit the output folder (kgb.runner.verdict)."""
    full = P.CaseOutcome("c", P.CaseStatus.INFRA, rule=P.ErrorKind.STORAGE.value,
                         message="outputs could not be saved: No space left on device")
    return P.JobRecord(P.VerdictRecord(P.Verdict.UNVERIFIED, message="c: full", cases=(full,)),
                       P.JobFacts("jobs/x", "cpu"))


def test_a_job_whose_outputs_outgrew_its_share_runs_again_alone_with_a_roomier_cap(monkeypatch):
    """An honest softmax under --jobs 4 on an H200 outgrew its 16 GiB share of the machine's
    memory for outputs. Such a job runs again after the others, alone, with the cap of a run of
    one job (JobContext.roomier): its verdict does not depend on --jobs. Other unverified jobs,
    and runs with no larger cap to give (one job, or --limit output= given), do not."""
    four = jobs(4)
    outgrow = {four[0].task.id, four[2].task.id}
    roomy = Limits(output_bytes=64 << 30)
    ctx = dataclasses.replace(context(), roomier=roomy)
    fake_jobs(monkeypatch, lambda job, ctx: _outgrew() if job.task.id in outgrow else
              record("unverified" if job.task.id == four[1].task.id else "passed"))
    again: list[tuple[str, Limits, bool]] = []
    busy = threading.Event()

    def alone(job, ctx):
        again.append((job.task.id, ctx.limits, busy.is_set()))
        return record()

    monkeypatch.setattr(schedule, "run_job", alone)
    progress = Progress()
    outcome = schedule.run_all(four, ("cpu", "cpu"), ctx, progress, lambda job: None)
    assert sorted(again) == sorted((t, roomy, False) for t in outgrow)
    assert [r.verdict.verdict.value for _, r in outcome.results] == \
        ["passed", "unverified", "passed", "passed"]
    assert sum("run again alone" in line for line in progress.lines) == 2
    again.clear()  # no larger cap to give: the verdict stands
    outcome = schedule.run_all(four, ("cpu", "cpu"), context(), Progress(), lambda job: None)
    assert not again and outcome.results[0][1].verdict.verdict == P.Verdict.UNVERIFIED


def test_a_run_whose_jobs_share_the_memory_for_outputs_has_a_roomier_cap(tmp_path):
    """verify.open_run: with the output folder in RAM and --jobs 2, the cap for a job run
    again alone is a run of one job's; with --limit output= given, or one job, there is none."""
    import contextlib

    import psutil

    from kgb.runner import verify
    from kgb.sandbox.base import ram_output_cap

    sandbox = SimpleNamespace(name="bwrap", output_in_ram=True, isolation="namespaces")

    def roomier(jobs: int, limits: tuple[str, ...] = ()):
        options = verify.VerifyOptions(ROOT / "examples" / "honest", ROOT / "tasks",
                                       tmp_path / f"run{jobs}{len(limits)}", device="cpu",
                                       jobs=jobs, limits=limits, only=("activation.relu",),
                                       baseline_cache="off")
        with contextlib.ExitStack() as stack:
            run = verify.open_run(options, stack, None, sandbox=sandbox)
            return run.ctx.limits.output_bytes, run.ctx.roomier

    total = psutil.virtual_memory().total
    shared, roomy = roomier(2)
    if Limits().output_bytes > ram_output_cap(total, 2):  # the default cap was shrunk
        assert shared == ram_output_cap(total, 2)
        assert roomy is not None and roomy.output_bytes == \
            min(Limits().output_bytes, ram_output_cap(total, 1)) > shared
    assert roomier(1)[1] is None
    assert roomier(2, ("output=1g",))[1] is None


def test_the_likely_gpus_judge_starts_with_the_run_and_ends_if_unused(tmp_path, monkeypatch):
    """verify.open_run starts a judge for the GPU the first job will likely use before the
    host imports torch (its start-up beside the host's); the device nodes and --devices name
    it. Once the slots are known, a judge for a device the run does not use is ended (here a
    run that found no usable GPU)."""
    import contextlib

    import psutil

    from kgb.runner import verify

    options = verify.VerifyOptions(ROOT / "examples" / "honest", ROOT / "tasks",
                                   tmp_path / "run", device="auto", only=("activation.relu",),
                                   baseline_cache="off")
    monkeypatch.setattr(verify, "gpu_device_nodes", lambda: ["/dev/nvidiactl"])
    assert verify.likely_gpu(options) == "cuda:0"
    assert verify.likely_gpu(dataclasses.replace(options, devices="2,3")) == "cuda:2"
    assert verify.likely_gpu(dataclasses.replace(options, device="cpu")) is None
    assert verify.likely_gpu(dataclasses.replace(options, ray="auto")) is None
    monkeypatch.setattr(verify, "resolve_device", lambda requested: "cpu")  # no usable GPU
    sandbox = SimpleNamespace(name="bwrap", output_in_ram=False, isolation="namespaces")
    with contextlib.ExitStack() as stack:
        run = verify.open_run(options, stack, None, sandbox=sandbox)
        assert run.slots == ("cpu",) and run.ctx.judges._all == []
        assert run.ctx.judges.compiles is False  # no GPU: no torch.compile to prepare for
    notes = (tmp_path / "run" / "judges.log").read_text()
    started = [line for line in notes.splitlines() if "started with the run" in line]
    assert len(started) == 1 and " on cuda:0 " in started[0]
    pid = int(started[0].split(": judge ")[1].split()[0])
    assert f"judge {pid} on cuda:0 ended: the run does not use it" in notes
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
