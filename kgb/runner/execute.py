"""One job, start to verdict: static layer, candidate in the sandbox, trusted judge, grading.

Each job has its own folder (SWE-bench's habit) holding every file it produced — the plan, the
worker's instructions and claims, the sandbox's record, the logs, the judgement, the verdict —
so the job can be re-graded without running anything (kgb.runner.grade)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import kgb
from kgb import protocol as P
from kgb.bench.conditions import conditions, snapshot
from kgb.bench.neighbours import NeighbourWatch
from kgb.jsonfiles import write_json_atomic
from kgb.runner.baseline_cache import BaselineCache, Entry, Key, unclean
from kgb.runner.gpu_share import GpuShare, Shares
from kgb.runner.grade import CONDITIONS_FILE, PLAN_FILE, grade, read_result
from kgb.runner.host_clock import mark_once
from kgb.runner.interpreter import scan
from kgb.runner.journal import write_finished
from kgb.runner.judge_pool import JudgePool, JudgeProcess, Reservation
from kgb.runner.plan import Job, unrun_shapes
from kgb.runner.run_memo import RunMemo
from kgb.sandbox.base import (
    ExecResult,
    HeldOutputs,
    Limits,
    Sandbox,
    SandboxRequest,
    Started,
    job_limits,
)

KGB_ROOT = Path(kgb.__file__).resolve().parent
JUDGE_TIMEOUT_S = 1800.0
EVIDENCE_BYTES = 16 << 20


@dataclass(frozen=True)
class JobContext:
    """What every job of a run shares."""

    run_id: str
    out_dir: Path
    sandbox: Sandbox
    limits: Limits
    submission_root: Path
    judges: JudgePool
    cancel: threading.Event = field(default_factory=threading.Event)  # set: the run is stopping
    static: bool = True  # layer 1 on (off only with --static off, a research option)
    peaks: tuple[P.Peaks | None, P.Peaks | None] | None = None  # (floor, efficiency) on a GPU
    timing: bool = True  # --timing: GPU jobs time their standard cases
    baselines: str = "all"  # --baselines: all (eager and torch.compile), eager, none
    cuda_graph: bool = False  # --cuda-graph: timed calls are CUDA-graph replays
    # Warm slots: each slot prepares its next job (layer 1, sandbox started, worker importing)
    # while the current one runs; off (--warm off) every job starts from nothing at its turn.
    warm: bool = True
    baseline_cache: BaselineCache | None = None  # the trusted store of baseline timings
    # GPUs several timed jobs share (--jobs N with timing on): each one's timing lock
    # (kgb/runner/gpu_share.py); a GPU not among them runs one job at a time.
    shares: Shares = field(default_factory=Shares)
    # What the run's jobs compute once for each other (a batch's members share it):
    # baselines being measured, the empty loop's cost per case (kgb.runner.run_memo)
    memo: RunMemo = field(default_factory=RunMemo)
    # The folder under which every job that may share this run's GPUs has its own (a batch's
    # or a Ray actor's root: its members' runs share the GPUs and their locks); None: this
    # run's jobs/ folder. A co-tenant's worker found there is kgb's own, not a neighbour.
    tenants: Path | None = None
    # The limits a job runs again with, alone, when its outputs outgrew the output folder's
    # cap that --jobs N shrank to a share of the machine's memory (None: no larger cap).
    roomier: Limits | None = None
    # The limits of the run-again pass, one job per device at a time: the cap of a run of as
    # many jobs as devices (None: no larger cap than the run's own, or one device).
    spread: Limits | None = None
    # Set on the run-again pass: why this job runs again (kept in its folder, AGAIN_FILE, and
    # its facts' note, so a resumed run does not run it again).
    again: str | None = None


class JobCancelled(Exception):
    """The run was stopped while this job ran: it has no verdict and is not journaled."""


@dataclass
class PreparedJob:
    """A job up to the moment its candidate runs: planned, layer 1 done, and — when there is a
    kernel to run — its sandbox started and its worker importing (Sandbox.start), so a slot
    can prepare its next job while the current one runs."""

    job: Job
    job_dir: Path
    plan: P.PlanRecord
    clock: _Clock
    limits: Limits
    launch: _Launch | None  # None: nothing runs (no kernel, or layer 1 refused it)
    ready_at: float = 0.0  # when preparing ended (time.monotonic)
    ahead: bool = False  # prepared while the slot's previous job ran (a warm start)


def run_job(job: Job, ctx: JobContext) -> P.JobRecord:
    """Run one job to its verdict; its folder keeps every file the verdict rests on."""
    return finish_job(prepare_job(job, ctx), ctx)


def prepare_job(job: Job, ctx: JobContext) -> PreparedJob:
    """Plan the job, run layer 1, and start its candidate's sandbox, held until finish_job."""
    mark_once("first job prepared")
    started = time.monotonic()
    job_dir = ctx.out_dir / "jobs" / job.folder  # a shard: its own folder in the task's
    if job_dir.exists():
        shutil.rmtree(job_dir)
    job_dir.mkdir(parents=True)
    source = job.kernel.path.read_text(errors="replace") if job.kernel else None
    with _HOST_PARSE_LOCK:
        plan, findings = _plan_record(job, ctx, source)
    write_json_atomic(job_dir / PLAN_FILE, P.to_json(plan), indent=1)
    if ctx.again is not None:
        (job_dir / P.AGAIN_FILE).write_text(ctx.again)
    limits = job_limits(ctx.limits, len(job.cases))
    launch = None
    if job.kernel is not None and not findings:
        launch = _start_candidate(job, plan, job_dir, ctx, limits)
    ready = time.monotonic()
    return PreparedJob(job, job_dir, plan, _Clock(static_s=ready - started), limits, launch,
                       ready)


def finish_job(prepared: PreparedJob, ctx: JobContext) -> P.JobRecord:
    """Release the held candidate, judge it and grade the job. The job's own time counts from
    here: a prepared job waited for its slot, which is the previous job's time."""
    began = time.monotonic()
    job, job_dir, clock = prepared.job, prepared.job_dir, prepared.clock
    if prepared.launch is not None:
        try:
            _run(job, prepared.plan, job_dir, ctx, prepared.limits, clock, prepared.launch)
        finally:
            # ends it if it never ran; releases a sandbox that held its outputs for the judge
            # (success, failure, timeout, cancel, exception): its teardown is the job's time
            released = time.monotonic()
            prepared.launch.abandon()
            clock.sandbox_s += time.monotonic() - released
    graded = time.monotonic()
    record = grade(job_dir, ctx.out_dir)
    now = time.monotonic()
    waited = began - prepared.ready_at
    phases = P.HostPhases(round(clock.static_s, 4), round(clock.sandbox_s, 4),
                          round(clock.judge_s, 4), round(now - graded, 4),
                          round(clock.static_s + now - began, 4),
                          round(waited, 4) if prepared.ahead else None)
    write_json_atomic(job_dir / P.PHASES_FILE, P.to_json(phases))
    write_finished(job_dir, record)  # last: its presence marks the job finished
    return record


def abandon_job(prepared: PreparedJob) -> None:
    """End a prepared job unrun (the run stops, or another slot takes it): its sandbox and
    worker are killed and removed; its folder is left to be prepared again."""
    if prepared.launch is not None:
        prepared.launch.abandon()


# The host's parsing of a job (the cost model's expressions, radon's metrics: Python's `ast`)
# runs one job at a time: CPython 3.11's AST constructor keeps one recursion counter per
# interpreter, and two job threads parsing at once failed a run with "AST constructor
# recursion depth mismatch" (seen in CI with --jobs 2).
_HOST_PARSE_LOCK = threading.Lock()


def _plan_record(job: Job, ctx: JobContext, source: str | None
                 ) -> tuple[P.PlanRecord, list[P.Finding]]:
    """Layer 1 and what the host decides before running anything (plan.json)."""
    findings = static_findings(source, job) if source is not None and ctx.static else []
    interpreter = job.device == "cpu"
    limits = job_limits(ctx.limits, len(job.cases))
    plan = P.PlanRecord(
        task_id=job.task.id, category=job.task.category,
        kernel_file=job.kernel.file if job.kernel else None, slot=job.device,
        timeout_s=limits.wall_time_s, compile_budget_s=limits.compile_time_s,
        cases=tuple(c.spec(None, *job.task.cost(c.shape.as_dict(), c.dtype)) for c in job.cases),
        findings=tuple(findings),
        interpreter_features=tuple(sorted(scan(source, job.task.precisions)))
        if interpreter and source else (),
        floor_peaks=ctx.peaks[0] if ctx.peaks else None,
        efficiency_peaks=ctx.peaks[1] if ctx.peaks else None,
        timing=ctx.timing and not interpreter,
        cuda_graph=ctx.cuda_graph and ctx.timing and not interpreter,
        code=_code_metrics(source), glue=job.task.glue,
        unrun_shapes=unrun_shapes(job.task, job.device))
    return plan, findings


@dataclass
class _Clock:
    """The host's seconds per step of one job, for phases.json."""

    static_s: float
    sandbox_s: float = 0.0
    judge_s: float = 0.0


def _code_metrics(source: str | None) -> P.CodeMetrics | None:
    """MI and CC of the kernel file, here where the host already holds its source (radon
    parses it; nothing of it runs)."""
    if source is None:
        return None
    from kgb.metrics.code import code_metrics

    return code_metrics(source)


def static_findings(source: str, job: Job) -> list[P.Finding]:
    """Layer 1. It always runs: a kgb that cannot import it fails, it never skips it."""
    from kgb.anticheat.static import analyze, task_forbid

    assert job.kernel is not None
    return analyze(source, job.kernel.file, job.entry, task_forbid(job.task), job.task.category)


def _run(job: Job, plan: P.PlanRecord, job_dir: Path, ctx: JobContext, limits: Limits,
         clock: _Clock, launch: _Launch) -> None:
    interpreter = job.device == "cpu"
    gpu = None if interpreter else int(job.device.split(":")[1])
    before = snapshot(gpu) if gpu is not None else None
    # Other processes on this GPU while the worker runs and the judge times its baselines:
    # beside one, D304's window is no evidence and the timings are disturbed.
    # On a shared GPU the run's other jobs are kgb's own co-tenants, frozen through every
    # timed window (kgb/runner/gpu_share.py): under docker they are no descendants of kgb, so
    # they are known by their job folders, under the run's.
    own = str(ctx.tenants or ctx.out_dir / "jobs") + os.sep if ctx.shares.get(job.device) \
        else str(job_dir)
    watch = NeighbourWatch(gpu, own, (os.getpid(),)).start() \
        if gpu is not None and plan.timing else None
    after: dict | str | None = None
    keys: dict[tuple[str, str], Key] = {}
    claims: list[str] = []  # the baselines this job measures for the run (single flight)
    try:
        try:
            after = _run_and_judge(job, plan, job_dir, launch, ctx, limits, clock, gpu, keys,
                                   claims)
        finally:
            neighbours = watch.stop() if watch is not None else None
        if before is not None and after is not None:
            write_json_atomic(job_dir / CONDITIONS_FILE,
                              P.to_json(conditions(before, after, neighbours)))
        if gpu is not None and before is not None and after is not None and plan.timing:
            # kept only when the GPU was clean as the judge began its baselines (a candidate
            # may have heated it) and when it ended them
            _keep_measured(ctx, job, plan, keys, job_dir,
                           (conditions(before, after, neighbours),
                            conditions(before, snapshot(gpu), neighbours)))
    finally:
        ctx.memo.flights.release(claims)


def _keep_measured(ctx: JobContext, job: Job, plan: P.PlanRecord,
                   keys: dict[tuple[str, str], Key], job_dir: Path,
                   states: tuple[P.Conditions, ...]) -> None:
    """What this job's judge measured for the others: its baselines into the store, the
    empty loop's cost into the run's memo (kgb.runner.run_memo), when the GPU was clean."""
    try:
        judged = P.read(P.JudgeResult, job_dir / P.JUDGE_FILE, P.JUDGE_MAX_BYTES)
    except P.ProtocolError:
        return  # no judgement (a failed judge): nothing measured to keep
    state = next((s for s in states if unclean(s)), states[-1])
    if ctx.baseline_cache is not None and keys:
        ctx.baseline_cache.commit(keys, judged, state)
    if unclean(state) is None:
        ctx.memo.loops.commit(job.device, job.task.id, plan.cases, judged)


def _run_and_judge(job: Job, plan: P.PlanRecord, job_dir: Path, launch: _Launch, ctx: JobContext,
                   limits: Limits, clock: _Clock, gpu: int | None,
                   keys: dict[tuple[str, str], Key], claims: list[str]) -> dict | str | None:
    """The worker in its sandbox, then the judge; the GPU's state right after the worker.
    `keys` receives the baseline-store keys of the baselines the judge was asked for, and
    `claims` those this job measures for the run."""
    with ctx.judges.reserve(job.device) as reservation:  # its judge starts while it runs
        return _run_then_judge(job, plan, job_dir, launch, ctx, clock, gpu, keys, claims,
                               reservation)


def _run_then_judge(job: Job, plan: P.PlanRecord, job_dir: Path, launch: _Launch,
                    ctx: JobContext, clock: _Clock, gpu: int | None,
                    keys: dict[tuple[str, str], Key], claims: list[str],
                    reservation: Reservation) -> dict | str | None:
    out = launch.out
    ahead = _Ahead(job, plan, job_dir, ctx, launch.share, reservation) if launch.ahead else None
    try:
        execution = _run_candidate(launch, job, job_dir, ctx)
    except BaseException:
        if ahead is not None:
            ahead.end(stop=True)
        raise
    clock.sandbox_s = execution.wall_s
    after = snapshot(gpu) if gpu is not None else None
    result = read_result(out)
    # Waited for even when nothing was timed: stopping it kills the judge, and the
    # judgement would then start one (its torch, CUDA and dynamo imports: as long, on the path)
    held = ahead.end(stop=ctx.cancel.is_set()) if ahead is not None else None
    _judge_after(job, plan, job_dir, launch, ctx, clock, keys, claims, reservation, execution,
                 result, held)
    return after


def _judge_after(job: Job, plan: P.PlanRecord, job_dir: Path, launch: _Launch,
                 ctx: JobContext, clock: _Clock, keys: dict[tuple[str, str], Key],
                 claims: list[str], reservation: Reservation, execution: ExecResult,
                 result: object, held: JudgeProcess | None) -> None:
    """The judgement of a worker that ran (`held`: the judge that compiled ahead for it,
    handed back to the pool whatever happens)."""
    try:
        if ctx.cancel.is_set():
            raise JobCancelled(job.task.id)
        if isinstance(result, P.WorkerResult) and not execution.timed_out:
            request = _judge_request(job, plan, job_dir, launch, ctx, keys, claims, result)
            asked = time.monotonic()
            # On a shared GPU the judge is one of its tenants: it takes the timing lock only
            # to time its baselines and the empty loop (the jobs in flight frozen), and is
            # frozen itself during their windows, so its references and comparisons never run
            # inside another job's timed window (kgb/judge/gpu_lock.py).
            judge, held = held, None  # the pool has it back after the judgement
            _run_judge(request, job_dir, ctx, launch.share, reservation, judge)
            clock.judge_s = time.monotonic() - asked
            if ctx.cancel.is_set():
                raise JobCancelled(job.task.id)
            _prune_large_files((launch.out, ctx.out_dir / "refcache" / job.task.id))
    finally:
        if held is not None:  # kept for a judgement that did not happen
            ctx.judges.give_back(held)


def _judge_request(job: Job, plan: P.PlanRecord, job_dir: Path, launch: _Launch,
                   ctx: JobContext, keys: dict[tuple[str, str], Key], claims: list[str],
                   result: P.WorkerResult) -> P.JudgeRequest:
    """What the judge is asked about a worker that ran, with the baselines the store (or
    another job of the run, once it stored them) already has."""
    record = P.read(P.ExecRecord, job_dir / P.EXEC_FILE, 64 << 20)
    timed = tuple(t.case for t in result.timed)
    graphs = tuple(t.case for t in result.timed if t.graph)
    cached: tuple[P.CachedBaseline, ...] = ()
    if ctx.baseline_cache is not None and timed:
        keys.update(ctx.baseline_cache.keys(job.task.id, job.task.folder, plan.cases, timed,
                                            graphs, ctx.baselines, job.device))
        if keys:  # another job of the run measuring them: its figures, once stored
            cached = ctx.baseline_cache.lookup_or_claim(keys, claims, ctx.memo.flights,
                                                        ctx.cancel)
    return P.JudgeRequest(
        job_dir=str(job_dir), task_dir=str(job.task.folder), device=job.device,
        cases=plan.cases, layout_inputs=job.task.strided_inputs,
        seed_input=job.task.seed_input, claims=result.cases, commits=record.commits,
        timed_cases=timed, baselines=ctx.baselines, graph_cases=graphs,
        output_cap=ctx.limits.output_bytes,
        cached=cached, loops=ctx.memo.loops.lookup(job.device, job.task.id, plan.cases,
                                                   timed),
        # handed over in place: the judge reads the sandbox's own folder, which stays
        # until finish_job releases it
        outputs_dir=launch.held.folder if launch.held else None,
        outputs_ident=launch.held.ident if launch.held else ())


def planned_timing(plan: P.PlanRecord) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The cases the worker will time, and those it will time as CUDA graphs, as the plan
    says before it runs (the worker's result says which it did)."""
    timed = tuple(c.id for c in plan.cases if c.timeable)
    return timed, timed if plan.cuda_graph else ()


def compiles_ahead(job: Job, plan: P.PlanRecord, ctx: JobContext) -> bool:
    """Whether this job's judge compiles the reference for its timed cases while the worker
    runs (issue 24: a cold judge's torch.compile was 5-13 s of a job's path after the worker,
    runs 24-25): a timed GPU job with both baselines, a lock for its GPU (its judge becomes the
    worker's co-tenant, frozen through the worker's timed windows), and a torch.compile
    figure of its cases that the baseline store does not hold. With every figure stored the
    judge compiles nothing and the job's GPU is its own, as before."""
    if not plan.timing or ctx.baselines != "all" or ctx.shares.for_ahead(job.device) is None \
            or ctx.again is not None:  # run again (out of GPU memory, say): as before
        return False
    timed, graphs = planned_timing(plan)
    if not timed:
        return False
    if ctx.baseline_cache is None:
        return True
    keys = ctx.baseline_cache.keys(job.task.id, job.task.folder, plan.cases, timed, graphs,
                                   "all", job.device)
    wanted = [key for (_, kind), key in keys.items() if kind == "compile"]
    return not wanted or any(not isinstance(ctx.baseline_cache.store.get(key), Entry)
                             for key in wanted)


class _Ahead:
    """A job's compile-ahead request, on its own thread while the worker runs, in the judge
    the job then keeps for its judgement (JudgePool.ahead). The request names the cases the
    plan will time; the compiled function lives in that judge process."""

    def __init__(self, job: Job, plan: P.PlanRecord, job_dir: Path, ctx: JobContext,
                 share: GpuShare | None, reservation: Reservation) -> None:
        timed, graphs = planned_timing(plan)
        request = P.JudgeRequest(
            job_dir=str(job_dir), task_dir=str(job.task.folder), device=job.device,
            cases=plan.cases, layout_inputs=job.task.strided_inputs,
            seed_input=job.task.seed_input, claims=(), timed_cases=timed,
            baselines=ctx.baselines, graph_cases=graphs, ahead=True)
        # the GPU's memory that ran out may have been the judge's: the job runs again without
        (job_dir / P.AHEAD_FILE).write_text("the judge compiled the reference beside the worker\n")
        self.cancel = threading.Event()
        self.judge: JudgeProcess | None = None
        self._thread = threading.Thread(
            target=self._run, args=(ctx, request, share, reservation), daemon=True,
            name=f"kgb-ahead-{job.task.id}")
        self._thread.start()

    def _run(self, ctx: JobContext, request: P.JudgeRequest, share: GpuShare | None,
             reservation: Reservation) -> None:
        self.judge = ctx.judges.ahead(request, JUDGE_TIMEOUT_S, self.cancel, share,
                                      reservation)

    def end(self, stop: bool) -> JudgeProcess | None:
        """Wait for the compiles (stopped first with `stop`: the judge is then killed) and
        hand over the judge that holds them; None if it failed or was stopped."""
        if stop:
            self.cancel.set()
        self._thread.join()
        return None if stop else self.judge


def worker_env(device: str, tmp_dir: Path, limits: Limits) -> dict[str, str]:
    """The worker's whole environment: nothing from the caller leaks in (threat 23)."""
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp_dir), "TMPDIR": str(tmp_dir),
        "TRITON_CACHE_DIR": str(tmp_dir / "triton"),
        "PYTHONPATH": str(KGB_ROOT.parent), "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": str(max(1, int(limits.cpus))),
        "MPLCONFIGDIR": str(tmp_dir),
    }
    if os.environ.get("KGB_PRECOMPILE") == "0":  # the autotune pre-compile off (a benchmark)
        env["KGB_PRECOMPILE"] = "0"
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
        env["CUDA_VISIBLE_DEVICES"] = ""
        # The interpreter runs a kernel on one thread; the worker's own torch work (inputs,
        # clones, fingerprints of the small CPU shapes) gains nothing from a second one, which
        # spins beside the run's other slot and judge: one relu job on the loaded 2-core
        # machine, cases 5.3-7.2 s / 7.8-8.9 s CPU with one thread, 13.9-15.7 s / 9.9-11.4 s
        # with two. Verdicts do not depend on it (inputs are drawn serially).
        env["OMP_NUM_THREADS"] = "1"
    else:
        env["CUDA_VISIBLE_DEVICES"] = device.split(":")[1]
        for key in ("LD_LIBRARY_PATH", "CUDA_HOME", "TRITON_PTXAS_PATH"):
            if key in os.environ:
                env[key] = os.environ[key]
    return env


def runtime_paths() -> tuple[Path, ...]:
    """Host paths the worker must read: the Python runtime, its packages, kgb itself."""
    paths = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), KGB_ROOT,
             Path(sys.executable).resolve().parent}
    import site

    for p in site.getsitepackages():
        paths.add(Path(p).resolve())
    return tuple(sorted(paths))


@dataclass
class _Launch:
    """A candidate's sandbox, started and held (Sandbox.start), with its scratch folder; once
    run, the outputs it may hold in place for the judge (ExecResult.held) until released."""

    started: Started
    tmp_dir: Path
    out: Path
    ran: bool = False
    held: HeldOutputs | None = None
    # the GPU's timing lock this job's windows go through (None: the GPU is its own)
    share: GpuShare | None = None
    ahead: bool = False  # its judge compiles the reference while the worker runs

    def go(self) -> ExecResult:
        self.ran = True
        try:
            execution = self.started.go()
        finally:
            shutil.rmtree(self.tmp_dir, ignore_errors=True)
        self.held = execution.held
        return execution

    def abandon(self) -> None:
        """End it unrun, or release the outputs it holds; idempotent."""
        if self.ran:
            held, self.held = self.held, None
            if held is not None:
                held.release()
            return
        self.ran = True
        try:
            self.started.abandon()
        finally:
            shutil.rmtree(self.tmp_dir, ignore_errors=True)


def _start_candidate(job: Job, plan: P.PlanRecord, job_dir: Path, ctx: JobContext,
                     limits: Limits) -> _Launch:
    """Write the worker's instructions and start its sandbox, held (a warm start)."""
    assert job.kernel is not None
    out = job_dir / P.OUT_DIR
    out.mkdir()
    # The worker gets a copy of the task's inputs.py in its (read-only) job folder, never the
    # task folder: reference.py must not be readable inside the sandbox.
    inputs_copy = job_dir / P.TASK_INPUTS_FILE
    shutil.copyfile(job.task.inputs_path, inputs_copy)
    interpreter = job.device == "cpu"
    spec = P.JobSpec(
        task_id=job.task.id, inputs_path=str(inputs_copy),
        layout_inputs=job.task.strided_inputs, seed_input=job.task.seed_input,
        kernel_path=str(job.kernel.path), entry=job.entry,
        device="cpu" if interpreter else "cuda:0",  # inside the sandbox: the one visible GPU
        interpreter=interpreter, out_dir=str(out), cases=plan.cases, timing=plan.timing,
        cuda_graph=plan.cuda_graph, inplace=job.task.inplace)
    write_json_atomic(job_dir / P.JOB_FILE, P.to_json(spec), indent=1)
    ahead = compiles_ahead(job, plan, ctx)
    share = (ctx.shares.for_ahead(job.device) if ahead else ctx.shares.get(job.device)) \
        if plan.timing else None
    tmp_dir = Path(tempfile.mkdtemp(prefix=f"kgb-{ctx.run_id}-"))
    try:
        request = SandboxRequest(
            argv=(sys.executable, "-m", "kgb.worker", str(job_dir)),
            out_dir=out,
            ro_paths=runtime_paths() + (ctx.submission_root, job_dir),
            env=tuple(sorted(worker_env(job.device, tmp_dir, ctx.limits).items())),
            tmp_dir=tmp_dir, device=job.device, label=f"{ctx.run_id}/{job.task.id}",
            cwd=out, cancel=ctx.cancel, keep_names=P.OUTPUT_NAMES, channel=True,
            share=share, hand_over=hand_over_bytes())
        return _Launch(ctx.sandbox.start(request, limits), tmp_dir, out, share=share,
                       ahead=ahead and share is not None)
    except BaseException:
        shutil.rmtree(tmp_dir, ignore_errors=True)
        raise


def _run_candidate(launch: _Launch, job: Job, job_dir: Path, ctx: JobContext) -> ExecResult:
    out = launch.out
    if ctx.cancel.is_set():
        launch.abandon()
        raise JobCancelled(job.task.id)
    # The supervisor stops the job at its run-time limit, moved out by the time it spent
    # starting up, compiling, autotuning and waiting for a CPU (timed on the supervisor's
    # clock from `go`), up to the compile budget: the run time starts with the candidate's
    # import and does not grow with the machine's load.
    mark_once("first worker released")
    execution = launch.go()
    channel = _channel(execution.channel)
    # Only what the plan and the supervisor's commits name stays, before the folder is counted:
    # protocol-shaped files the worker planted (a case_999 file, timed files nobody kept) would
    # otherwise make "the folder was full" look true (kgb.runner.speed, _had_room).
    removed = drop_leftovers(out, planned_names(job, channel.commits if channel else ()))
    if removed:
        execution = replace(execution, notes=execution.notes + (
            f"{removed} output entries the plan does not name were deleted",))
    used = sum(f.stat().st_size for f in out.iterdir() if f.is_file())
    if execution.held is not None:  # what the judge reads in place, as the plan names it
        kept = planned_names(job, channel.commits if channel else ())
        used += sum(size for name, size in execution.held.files
                    if name in kept and not (out / name).is_file())
    (job_dir / P.STDOUT_LOG).write_text(execution.stdout)
    (job_dir / P.STDERR_LOG).write_text(execution.stderr)
    tail = [ln for ln in execution.stderr.strip().splitlines() if ln.strip()][-1:]
    record = P.ExecRecord(ctx.sandbox.name, execution.returncode, execution.timed_out,
                          execution.wall_s, execution.truncated, execution.notes,
                          P.cut(tail[0], 300) if tail else "", channel is not None,
                          channel.marks if channel else (), channel.commits if channel else (),
                          channel.compile_s if channel else None, execution.worker_s,
                          used, ctx.limits.output_bytes, shutil.disk_usage(out).free,
                          channel.startup_s if channel else None,
                          channel.waited_s if channel else None,
                          launch.share is not None and job.device != "cpu",
                          channel.windows if channel else (),
                          channel.frozen_s if channel else None,
                          execution.held.bytes if execution.held is not None else None)
    write_json_atomic(job_dir / P.EXEC_FILE, P.to_json(record), indent=1)
    return execution


@dataclass(frozen=True)
class _Channel:
    marks: tuple[P.Mark, ...] = ()
    commits: tuple[P.Commit, ...] = ()
    flooded: bool = False
    compile_s: float | None = None
    startup_s: float | None = None
    waited_s: float | None = None
    windows: tuple[P.LockWindow, ...] = ()
    frozen_s: float | None = None


def _channel(raw: dict | None) -> _Channel | None:
    """What the supervisor recorded on its channel, typed (None: no supervisor channel)."""
    if raw is None:
        return None
    try:
        marks = tuple(P.Mark(str(m[0]), float(m[1]),
                             float(m[2]) if len(m) > 2 and m[2] is not None else None)
                      for m in raw.get("marks", ()))
        seconds = [raw.get(k) for k in ("compile_s", "startup_s", "waited_s")]
        windows = tuple(P.LockWindow(float(w[0]), None if w[1] is None else float(w[1]),
                                     bool(w[2]), bool(w[3])) for w in raw.get("windows", ()))
        frozen = raw.get("frozen_s")
        compile_s, startup_s, waited_s = (float(s) if s is not None else None for s in seconds)
        return _Channel(marks, P.parse(tuple[P.Commit, ...], raw.get("commits", [])),
                        bool(raw.get("flooded")), compile_s, startup_s, waited_s,
                        windows, float(frozen) if frozen is not None else None)
    except (P.ProtocolError, TypeError, ValueError, IndexError):
        return None


def planned_names(job: Job, commits: tuple[P.Commit, ...]) -> frozenset[str]:
    """The files a worker may leave: its result, progress and traceback, one file per planned
    call, and the timed outputs the supervisor chose to keep."""
    names = {P.RESULT_FILE, P.PROGRESS_FILE, P.TRACEBACK_FILE}
    index = {case.id: i for i, case in enumerate(job.cases)}
    for i, case in enumerate(job.cases):
        names.update(P.output_file(i, k) for k in range(len(case.calls)))
    for commit in commits:
        if commit.case in index:
            names.update(P.timed_file(index[commit.case], rep) for rep in commit.keep)
    return frozenset(names)


def drop_leftovers(out: Path, planned: frozenset[str] | None = None) -> int:
    """Delete everything in the output folder that the protocol does not name (files,
    folders, links) — and, given `planned`, any name outside it — wherever the backend let the
    worker write in place; returns how many."""
    import re

    removed = 0
    for entry in list(out.iterdir()):
        if entry.is_file() and not entry.is_symlink() and re.match(P.OUTPUT_NAMES, entry.name) \
                and (planned is None or entry.name in planned):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed += 1
    return removed


def _run_judge(request: P.JudgeRequest, job_dir: Path, ctx: JobContext,
               share: GpuShare | None, reservation: Reservation | None = None,
               held: JudgeProcess | None = None) -> None:
    status = ctx.judges.judge(request, JUDGE_TIMEOUT_S, ctx.cancel, share, reservation, held)
    if status in ("timeout", "died"):
        (job_dir / P.JUDGE_LOG).write_text(f"the reference worker "
                                           f"{status.replace('died', 'exited')} without an "
                                           f"answer (log: judges.log)")
    if status != "ok":  # a judgement from a failed judge is not evidence
        (job_dir / P.JUDGE_FILE).unlink(missing_ok=True)


def hand_over_bytes() -> int | None:
    """Outputs larger than this stay in the sandbox's folder for the judge (issue 24, "bytes
    moved once"; bwrap and docker, where the host can read /proc/PID/root): EVIDENCE_BYTES, so
    a job folder keeps the same small evidence as a copy-out left after pruning.
    KGB_HAND_OVER=0 copies everything out as before (a benchmark's "before"); a number sets
    the bound in bytes. The process backend writes the host folder itself: nothing to hand."""
    value = os.environ.get("KGB_HAND_OVER", "").strip()
    if value in ("0", "off"):
        return None
    return int(value) if value.isdigit() else EVIDENCE_BYTES


def _prune_large_files(folders: tuple[Path, ...]) -> None:
    """GPU-sized outputs are judged, then dropped: job folders keep evidence files up to
    EVIDENCE_BYTES so a run does not leave gigabytes behind."""
    for folder in folders:
        for path in folder.glob("*.safetensors"):
            if path.stat().st_size > EVIDENCE_BYTES:
                path.unlink()
