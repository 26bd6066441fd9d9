"""Jobs whose verdict depended on the jobs beside them run again (kgb.runner.schedule): outputs
that outgrew the cap --jobs N shrank, and the GPU's memory running out (the candidate's or the
judge's) while other jobs shared it. The pass spreads over every device, one job per device at
a time; a job runs again at most once per pass; a stopped pass resumes. Fake jobs, no sandbox."""

from __future__ import annotations

import dataclasses
import itertools
import os
import signal
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from test_schedule import Progress, context, fake_jobs, jobs

from kgb import protocol as P
from kgb.runner import schedule
from kgb.runner.execute import JobCancelled, JobContext
from kgb.runner.verdict import decide, out_of_gpu_memory
from kgb.sandbox.base import Limits
from kgb.worker.errors import error_kind

SHARED = Limits(output_bytes=1 << 30)  # a run of several jobs per device
SPREAD = Limits(output_bytes=4 << 30)  # a run of one job per device
ROOMY = Limits(output_bytes=16 << 30)  # a run of one job


def record(verdict: str = "passed", device: str = "cuda:0", note: str | None = None,
           failure: P.ErrorKind | None = None, outgrew: bool = False) -> P.JobRecord:
    cases = (P.CaseOutcome("c", P.CaseStatus.INFRA, rule=P.ErrorKind.STORAGE.value,
                           message="No space left on device"),) if outgrew else ()
    return P.JobRecord(P.VerdictRecord(P.Verdict(verdict), message="m", cases=cases,
                                       failure=failure),
                       P.JobFacts("jobs/x", device, note=note))


def oom(device: str = "cuda:0", note: str | None = None) -> P.JobRecord:
    return record("crashed", device, note, P.ErrorKind.GPU_MEMORY)


def outgrew(device: str = "cuda:0", note: str | None = None) -> P.JobRecord:
    return record("unverified", device, note, outgrew=True)


def gpu_context() -> JobContext:
    return dataclasses.replace(context(), limits=SHARED, spread=SPREAD, roomier=ROOMY)


class Again:
    """A fake run_job for the pass: it plays `play(job, ctx)` and notes every run; the record
    carries ctx.again as its note, as grade does from the job folder's AGAIN_FILE."""

    def __init__(self, play=lambda job, ctx: "passed", hold: float = 0.0) -> None:
        self.play, self.hold = play, hold
        self.runs: list[tuple[str, str, Limits, float, float]] = []
        self.lock = threading.Lock()

    def __call__(self, job, ctx) -> P.JobRecord:
        start = time.monotonic()
        time.sleep(self.hold)
        played = self.play(job, ctx)
        with self.lock:
            self.runs.append((job.task.id, job.device, ctx.limits, start, time.monotonic()))
        if isinstance(played, P.JobRecord):
            return dataclasses.replace(played, facts=dataclasses.replace(
                played.facts, device=job.device, note=ctx.again))
        return record(played, job.device, ctx.again)


def test_reruns_spread_over_every_device_one_job_each_with_the_cap_of_one_per_device(
        monkeypatch):
    """28 jobs of a 4-GPU suite outgrew the cap 40 jobs shared: they run again one per GPU
    at a time over all the GPUs (not one after another on the first), with the cap of a run
    of one job per GPU; each progress line says why."""
    planned = jobs(6)
    fake_jobs(monkeypatch, lambda job, ctx: outgrew(job.device))
    again = Again(hold=0.15)
    monkeypatch.setattr(schedule, "run_job", again)
    progress = Progress()
    outcome = schedule.run_all(planned, ("cuda:0", "cuda:1") * 2, gpu_context(), progress,
                               reuse=lambda job: None)
    assert outcome.failure is None and outcome.interrupted is None
    assert sorted(r[0] for r in again.runs) == sorted(j.task.id for j in planned)
    assert {r[1] for r in again.runs} == {"cuda:0", "cuda:1"}
    assert all(r[2] == SPREAD for r in again.runs)
    for device in ("cuda:0", "cuda:1"):
        mine = sorted((s, e) for _, d, _, s, e in again.runs if d == device)
        assert all(end <= nxt for (_, end), (nxt, _) in itertools.pairwise(mine)), "two on one GPU"
    at_once = max(sum(s <= t < e for *_, s, e in again.runs) for *_, t, _ in again.runs)
    assert at_once == 2
    assert all(r.verdict.verdict == P.Verdict.PASSED for _, r in outcome.results)
    assert sum("run again alone: its outputs outgrew" in line for line in progress.lines) == 6


def test_a_job_that_outgrows_even_the_per_device_cap_runs_truly_alone_at_the_end(
        monkeypatch):
    planned = jobs(3)
    big = planned[0].task.id
    fake_jobs(monkeypatch, lambda job, ctx: outgrew(job.device))
    again = Again(lambda job, ctx: outgrew(job.device) if job.task.id == big and
                  ctx.limits == SPREAD else "passed", hold=0.05)
    monkeypatch.setattr(schedule, "run_job", again)
    progress = Progress()
    outcome = schedule.run_all(planned, ("cuda:0", "cuda:1") * 2, gpu_context(), progress,
                               reuse=lambda job: None)
    assert [r[0] for r in again.runs].count(big) == 2
    last = again.runs[-1]
    assert last[0] == big and last[2] == ROOMY
    assert all(e <= last[3] for *_, e in again.runs[:-1])  # nothing beside it
    kept = dict((j.task.id, r) for j, r in outcome.results)[big]
    assert kept.verdict.verdict == P.Verdict.PASSED
    assert kept.facts.note.startswith(schedule.ALONE_AT_LAST)
    # it stays unverified when even alone it outgrows: run once per pass, never a third time
    again.runs.clear()
    again.play = lambda job, ctx: outgrew(job.device) if job.task.id == big else "passed"
    outcome = schedule.run_all(planned, ("cuda:0", "cuda:1") * 2, gpu_context(), Progress(),
                               reuse=lambda job: None)
    assert [r[0] for r in again.runs].count(big) == 2
    assert dict((j.task.id, r) for j, r in outcome.results)[big].verdict.verdict == \
        P.Verdict.UNVERIFIED


def test_a_gpu_out_of_memory_beside_other_jobs_runs_again_alone_once(monkeypatch):
    """fusion.moe_llama4_block OOMed beside nine jobs on an H100: it runs again alone on a GPU,
    with the same job (same cases, the run's seed), and its alone verdict is kept. The judge's
    OOM (unverified) too. A re-run that OOMs again stands: never a third run."""
    planned = jobs(4)
    crashed, unjudged = planned[0].task.id, planned[1].task.id
    judge_oom = dataclasses.replace(oom(), verdict=P.VerdictRecord(
        P.Verdict.UNVERIFIED, message="the reference worker failed",
        failure=P.ErrorKind.GPU_MEMORY))

    def first(job, ctx):
        time.sleep(0.1)  # the two slots of cuda:0 overlap
        return oom(job.device) if job.task.id == crashed else \
            judge_oom if job.task.id == unjudged else record(device=job.device)

    fake_jobs(monkeypatch, first)
    seen: list = []
    again = Again(lambda job, ctx: seen.append(job) or "passed")
    monkeypatch.setattr(schedule, "run_job", again)
    progress = Progress()
    outcome = schedule.run_all(planned, ("cuda:0", "cuda:0"), gpu_context(), progress,
                               reuse=lambda job: None)
    assert sorted(r[0] for r in again.runs) == sorted([crashed, unjudged])
    assert {j.cases for j in seen} == {planned[0].cases, planned[1].cases}
    assert [r.verdict.verdict.value for _, r in outcome.results] == ["passed"] * 4
    assert any(line.startswith(f"{crashed}: passed (run again alone: out of GPU memory "
                               "beside 1 job)") for line in progress.lines), progress.lines
    again.runs.clear()
    again.play = lambda job, ctx: oom(job.device)  # alone and still out of memory
    outcome = schedule.run_all(planned, ("cuda:0", "cuda:0"), gpu_context(), Progress(),
                               reuse=lambda job: None)
    assert sorted(r[0] for r in again.runs) == sorted([crashed, unjudged])
    assert outcome.results[0][1].verdict.verdict == P.Verdict.CRASHED
    assert out_of_gpu_memory(outcome.results[0][1].verdict)


def test_an_out_of_memory_with_no_other_job_on_its_gpu_is_not_run_again(monkeypatch):
    planned = jobs(2)
    fake_jobs(monkeypatch, lambda job, ctx: oom(job.device))
    again = Again()
    monkeypatch.setattr(schedule, "run_job", again)
    for slots in (("cuda:0",), ("cuda:0", "cuda:1")):  # one job per GPU
        outcome = schedule.run_all(planned, slots, gpu_context(), Progress(),
                                   reuse=lambda job: None)
        assert not again.runs
        assert all(r.verdict.verdict == P.Verdict.CRASHED for _, r in outcome.results)


def test_printing_cuda_out_of_memory_is_not_an_out_of_memory():
    """The re-run is decided from the verdict's `failure`, which decide sets from the worker's
    error kind (the exception's type) or the judge's own file, never from text: a candidate
    that prints or raises "CUDA out of memory" in another exception gets a crash that stands.
    (One that raises a real OutOfMemoryError buys one run alone on the same checks.)"""
    plan = P.PlanRecord("t", "c", "k.py", "cuda:0", 1.0, ())
    execution = P.ExecRecord("process", 0, False, 1.0, False)
    said = "ValueError: CUDA out of memory. Tried to allocate 5.00 GiB"
    lying = P.WorkerResult("cases", (), said, P.ErrorKind.RUNTIME)
    verdict = decide(plan, execution, lying, None, None)
    assert verdict.verdict == P.Verdict.CRASHED and not out_of_gpu_memory(verdict)
    real = P.WorkerResult("cases", (), said, P.ErrorKind.GPU_MEMORY)
    assert out_of_gpu_memory(decide(plan, execution, real, None, None))
    assert error_kind(ValueError("CUDA out of memory")) == P.ErrorKind.RUNTIME
    assert error_kind(torch.OutOfMemoryError("CUDA out of memory.")) == P.ErrorKind.GPU_MEMORY
    assert error_kind(RuntimeError("Triton Error [CUDA]: out of memory")) == \
        P.ErrorKind.GPU_MEMORY
    assert error_kind(RuntimeError("out of resource: shared memory, Required: 262144")) == \
        P.ErrorKind.RUNTIME


def test_the_judges_out_of_memory_is_named_by_the_judge_not_by_its_log(tmp_path: Path):
    """A judge that failed: unverified; gpu_memory only from the judge's own file (it names an
    OutOfMemoryError by its type), not from the log's last line."""
    from kgb.errors import gpu_memory_exhausted as judge_oom
    from kgb.runner.grade import _judge_kind

    spec = P.CaseSpec("a", "s", {"N": 4}, "float32", "standard", "contiguous",
                      (P.CallSpec(P.CallKind.PRIMARY, 7),))
    plan = P.PlanRecord("t", "c", "k.py", "cuda:0", 1.0, (spec,))
    claim = P.CaseRecord("a", (P.CallRecord(0, P.CallKind.PRIMARY, P.CaseStatus.RETURNED,
                                            output_types=(P.PLAIN_TENSOR,), launches=1),))
    result = P.WorkerResult("done", (claim,))
    line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 GiB"
    execution = P.ExecRecord("process", 0, False, 1.0, False)
    plain = decide(plan, execution, result, None, None, judge_error=line)
    assert plain.verdict == P.Verdict.UNVERIFIED and not out_of_gpu_memory(plain)
    assert _judge_kind(tmp_path) is None
    (tmp_path / P.JUDGE_KIND_FILE).write_text("gpu_memory")
    named = decide(plan, execution, result, None, None, judge_error=line,
                   judge_kind=_judge_kind(tmp_path))
    assert named.verdict == P.Verdict.UNVERIFIED and out_of_gpu_memory(named)
    assert judge_oom(torch.OutOfMemoryError("CUDA out of memory."))
    assert not judge_oom(ValueError("CUDA out of memory"))


def test_a_stopped_pass_resumes_with_the_jobs_it_did_not_run_again(monkeypatch):
    """SIGTERM while jobs run again: the pass stops (the job in flight cancelled, unjournaled:
    its folder was being rewritten), the run reports it was interrupted. The resumed run reuses
    every journaled record — the first verdicts of the jobs not yet run again among them — and
    runs again exactly those, and the cancelled one, never a job that already ran again."""
    planned = jobs(4)
    journal: dict[str, P.JobRecord] = {}

    def first(job, ctx):
        journal[job.task.id] = outgrew(job.device)
        return journal[job.task.id]

    fake_jobs(monkeypatch, first)
    sent = threading.Event()

    def stop_on_second(job, ctx):
        journal.pop(job.task.id, None)  # prepare_job removes the folder it rewrites
        if len(again.runs) == 1 and not sent.is_set():
            sent.set()
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100):
                if ctx.cancel.is_set():
                    raise JobCancelled(job.task.id)
                time.sleep(0.05)
        journal[job.task.id] = record("passed", job.device, ctx.again)
        return "passed"

    again = Again(stop_on_second)
    monkeypatch.setattr(schedule, "run_job", again)

    def interrupt(signum, _frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        outcome = schedule.run_all(planned, ("cuda:0",) * 2, gpu_context(), Progress(),
                                   reuse=lambda job: None)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert outcome.interrupted == "SIGTERM"
    rerun = [r[0] for r in again.runs]
    assert len(rerun) == 1 and journal[rerun[0]].facts.note  # one ran again, journaled
    cancelled = next(j.task.id for j in planned if j.task.id not in journal)
    fresh = [j.task.id for j in planned if j.task.id not in journal]
    assert fresh == [cancelled]
    ran: list[str] = []
    fake_jobs(monkeypatch, lambda job, ctx: ran.append(job.task.id) or first(job, ctx))
    again.runs.clear()
    again.play = lambda job, ctx: "passed"
    outcome = schedule.run_all(planned, ("cuda:0",) * 2, gpu_context(), Progress(),
                               reuse=lambda job: journal.get(job.task.id))
    assert outcome.interrupted is None and ran == [cancelled]
    assert sorted(r[0] for r in again.runs) == sorted(t.task.id for t in planned
                                                      if t.task.id != rerun[0])
    assert all(r.verdict.verdict == P.Verdict.PASSED for _, r in outcome.results)


def test_the_caps_of_a_job_run_again(monkeypatch):
    """verify.again_limits: spread is the cap of a run of one job per device, between the
    run's shared cap and alone's; none with one device or --limit output= given."""
    import psutil

    from kgb.runner import verify
    from kgb.sandbox.base import ram_output_cap

    monkeypatch.setattr(psutil, "virtual_memory", lambda: SimpleNamespace(total=512 << 30))
    sandbox = SimpleNamespace(output_in_ram=True)
    base = Limits(output_bytes=1 << 40)
    slots = ("cuda:0", "cuda:1", "cuda:2", "cuda:3") * 10
    fitted = verify.fit_output_to_ram(base, sandbox, len(slots), ())
    roomier, spread = verify.again_limits(base, fitted, sandbox, slots, ())
    assert fitted.output_bytes == ram_output_cap(512 << 30, 40)
    assert spread is not None and spread.output_bytes == ram_output_cap(512 << 30, 4)
    assert roomier is not None and roomier.output_bytes == ram_output_cap(512 << 30, 1)
    assert fitted.output_bytes < spread.output_bytes < roomier.output_bytes
    one = ("cuda:0",) * 4
    roomier, spread = verify.again_limits(base, verify.fit_output_to_ram(base, sandbox, 4, ()),
                                          sandbox, one, ())
    assert roomier is not None and spread is None
    assert verify.again_limits(base, fitted, sandbox, slots, ("output=1g",))[1] is None


@pytest.mark.parametrize("beside, expected", [(None, "beside up to 1 jobs"),
                                              (0, None), (3, "beside 3 jobs")])
def test_why_a_kept_record_runs_again(beside, expected):
    """A record kept from a resumed run (beside unknown) may have had its device's other
    slots beside it; a job that ran with none beside it is not run again."""
    why = schedule._why_again(oom(), gpu_context(), ("cuda:0", "cuda:0"), beside)
    assert (why is None) if expected is None else (expected in why)
    assert schedule._why_again(oom(note=f"{schedule.ALONE_ON_DEVICE}: x"), gpu_context(),
                               ("cuda:0", "cuda:0"), beside) is None


def test_a_job_run_again_keeps_why_in_its_folder_and_journal(tmp_path: Path):
    """execute.prepare_job writes the pass's reason (AGAIN_FILE, the host's) and grade carries
    it into the facts' note: the journal entry a resumed run reuses says the job already ran
    again, and a regrade keeps it. A job run the first time has no note."""
    from kgb.runner import journal
    from kgb.runner.execute import run_job

    job = jobs(1)[0]  # no kernel: nothing runs, the folder is planned and graded
    ctx = dataclasses.replace(context(), out_dir=tmp_path)
    assert run_job(job, ctx).facts.note is None
    why = f"{schedule.ALONE_ON_DEVICE}: out of GPU memory beside 2 jobs"
    done = run_job(job, dataclasses.replace(ctx, again=why))
    assert done.facts.note == why
    assert journal.finished(tmp_path / "jobs" / job.folder).facts.note == why
    assert run_job(job, ctx).facts.note is None  # a fresh folder: the note is not left over


def test_the_pass_ends_idle_judges_beyond_one_per_device():
    """Ten slots per GPU leave ten idle judges, each with a CUDA context, beside a job that is
    to run alone: all but one per device end before the pass."""
    from kgb.runner.judge_pool import JudgePool

    class Judge(SimpleNamespace):
        def close(self, kill: bool = False) -> None:
            self.closed = kill

    pool = JudgePool.__new__(JudgePool)
    pool._lock = threading.Lock()
    idle = [Judge(device=d, closed=None) for d in ("cuda:0", "cuda:1") * 3]
    pool._idle, pool._all = list(idle), list(idle)
    pool.trim()
    assert [id(j) for j in pool._idle] == [id(j) for j in idle[:2]]
    assert [id(j) for j in pool._all] == [id(j) for j in idle[:2]]
    assert [j.closed for j in idle] == [None, None] + [True] * 4


def test_with_no_larger_cap_per_device_outgrown_jobs_go_straight_to_alone_one_at_a_time(
        monkeypatch):
    """One job per GPU (--jobs 1 on two GPUs): the cap of one job per device is the run's
    own, so nothing is gained by a per-device pass; the jobs run truly alone, one at a time —
    never two at once with alone's cap each (more than the machine's memory allows)."""
    planned = jobs(2)
    fake_jobs(monkeypatch, lambda job, ctx: outgrew(job.device))
    again = Again(hold=0.1)
    monkeypatch.setattr(schedule, "run_job", again)
    ctx = dataclasses.replace(gpu_context(), spread=None)
    outcome = schedule.run_all(planned, ("cuda:0", "cuda:1"), ctx, Progress(),
                               reuse=lambda job: None)
    assert sorted(r[0] for r in again.runs) == sorted(j.task.id for j in planned)
    assert all(r[2] == ROOMY for r in again.runs)
    first, second = sorted(again.runs, key=lambda r: r[3])
    assert first[4] <= second[3]  # one at a time
    assert all(r.facts.note.startswith(schedule.ALONE_AT_LAST) for _, r in outcome.results)


def test_a_job_out_of_gpu_memory_beside_its_judges_compile_ahead_runs_again(tmp_path):
    """A lone job's judge compiled the reference beside its worker (execute.compiles_ahead,
    marked by AHEAD_FILE in its folder): out of GPU memory, the job runs again (without the
    compile ahead: ctx.again is set), as it would beside another job; without the mark a
    job with nothing beside it does not."""
    from kgb.runner.execute import compiles_ahead

    ctx = dataclasses.replace(gpu_context(), out_dir=tmp_path)
    (tmp_path / "jobs" / "x").mkdir(parents=True)
    assert schedule._why_again(oom(), ctx, ("cuda:0",), 0) is None
    (tmp_path / "jobs" / "x" / P.AHEAD_FILE).write_text("compiled ahead\n")
    why = schedule._why_again(oom(), ctx, ("cuda:0",), 0)
    assert why is not None and "torch.compile ahead" in why
    from kgb.runner.gpu_share import Shares

    lone = dataclasses.replace(ctx, shares=Shares.for_slots(("cuda:0",), ahead=True),
                               baseline_cache=None, baselines="all")
    case = P.CaseSpec("c0", "large", {"M": 64}, "float32", "standard", "contiguous",
                      (P.CallSpec(P.CallKind.PRIMARY, 7),))
    plan = P.PlanRecord("t.x", "Activation", "k.py", "cuda:0", 60.0, (case,), timing=True)
    job = SimpleNamespace(device="cuda:0")
    assert compiles_ahead(job, plan, lone) is True
    again = dataclasses.replace(lone, again=f"{schedule.ALONE_ON_DEVICE}: {why}")
    assert compiles_ahead(job, plan, again) is False
