"""Shards: one task's cases spread over several jobs, graded once (issue 24, "Batches").

A run with fewer jobs than slots (one submission of 1-3 kernels on a 4-GPU host, `--jobs 2` on
the CPU), or whose heaviest job would cap the run, splits that job's cases into contiguous
shards. Each shard is an ordinary job of its own (kgb.runner.execute: a fresh worker in a
fresh sandbox on its slot's device, its own judge request, its own folder
`jobs/<task>/shard-<k>/` and journal entry). When every shard of a task has finished, the host
merges their files into the task's folder as one unsharded job would have left them
(`merge_shards`) and grades that folder with the one grading function (kgb.runner.grade), so
the verdict, rules, feedback and speedups are decided over the union of the case records —
and `kgb report --regrade` regrades the merged folder like any other.

What stays where (docs/decisions.md, "Shards"): every check over the calls of one case runs
in the shard that holds the case; everything over cases runs on the host over the merged
files. A shard that ended its job (timeout, no result, a tampered result file, a compile
error, an exception outside the cases) ends the task as the unsharded job would have ended
at that case: the first such shard in plan order decides."""

from __future__ import annotations

import ast
import itertools
import threading
from dataclasses import dataclass, fields, is_dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from kgb import protocol as P
from kgb.errors import InfraError
from kgb.jsonfiles import write_json_atomic
from kgb.runner.grade import (
    CONDITIONS_FILE,
    HOST_FILE_CAP,
    PLAN_FILE,
    SHARDS_FILE,
    grade,
    read_optional,
    read_progress,
    read_result,
)
from kgb.runner.journal import write_finished
from kgb.runner.plan import Job
from kgb.sandbox.base import Limits, job_limits

if TYPE_CHECKING:
    from collections.abc import Callable

    from kgb.placement.base import JobPlacement
    from kgb.runner.execute import JobContext
    from kgb.runner.schedule import ScheduleOutcome, Work

# auto: split where it pays (below); on: wherever a slot would sit idle (tests, and tuning
# the estimate on a new machine); off: one job per task
MODES = ("auto", "on", "off")
MIN_CASES = 2  # a shard holds at least this many cases
# Where every slot is busy, a job is split only if one piece of it would still weigh more
# than this many times a slot's fair share of the run (it would hold the run's tail).
DOMINANT = 1.5
# The cost model's rough seconds (order of magnitude, for the policy only; never a verdict):
# a call's fixed cost, the cost units (kgb.runner.schedule.job_weight's bytes + FLOPs/64) a
# second, the extra of a timed case (loops, profiler, baselines), and a worker's start-up —
# what each extra shard costs. Measured on the 2-core dev machine (math.addcmul, interpreter:
# 16-45 ms a tiny call, ~1 s per 1e6 units; start-up 4-9 s loaded); the GPU figures are
# guesses from issue 24's profile, for the lead to tune on the 2-GPU host (`--shard-cases on`).
CALL_S = {"cpu": 0.02, "cuda": 0.05}
UNITS_PER_S = {"cpu": 1e6, "cuda": 5e10}
TIMED_CASE_S = 1.5
STARTUP_S = {"cpu": 6.0, "cuda": 8.0}


# An autotuned kernel tunes once per autotune key — a (shape, dtype) of the plan, whatever its
# mode or layout — benchmarking every config there: ~0.1 s a config on an H200 whatever the
# size (docs/performance.md, "The autotune target's floor"), far above its calls' cost. The
# rough seconds of one key's tuning on a GPU, for the policy only.
AUTOTUNE_KEY_S = 5.0


def _kind(job: Job) -> str:
    return "cpu" if job.device == "cpu" else "cuda"


def autotuned(job: Job) -> bool:
    """Whether the job's kernel file decorates something with Triton's autotuner (read
    here with `ast`, nothing of it run; a file that does not parse is not)."""
    if job.kernel is None or _kind(job) != "cuda":  # tuning costs only where a GPU times
        return False
    try:
        tree = ast.parse(job.kernel.path.read_text(errors="replace"))
    except (OSError, SyntaxError, ValueError, RecursionError):
        return False
    for node in ast.walk(tree):
        for deco in getattr(node, "decorator_list", ()):
            func = deco.func if isinstance(deco, ast.Call) else deco
            name = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else ""
            if name == "autotune":
                return True
    return False


def case_seconds(job: Job, index: int, timing: bool = False, tuned: bool = False) -> float:
    """One case's expected seconds in the worker (for splitting only); `tuned`: the kernel
    autotunes, and the first case of each key tunes it."""
    case, kind = job.cases[index], _kind(job)
    flops, nbytes = job.task.cost(case.shape.as_dict(), case.dtype)
    calls = max(1, len(case.calls))
    timed = TIMED_CASE_S if timing and kind == "cuda" and case.mode == "standard" else 0.0
    tuning = AUTOTUNE_KEY_S if tuned and \
        _key(case) not in {_key(c) for c in job.cases[:index]} else 0.0
    return calls * (CALL_S[kind] + (nbytes + flops / 64.0) / UNITS_PER_S[kind]) + timed + \
        tuning


def _key(case) -> tuple[str, str]:
    """The autotune key a case tunes (the autotuner keys on its sizes and the tensors'
    dtypes: the standard, outlier and strided cases of a shape and dtype share one)."""
    return (case.shape.name, case.dtype)


def job_seconds(job: Job, timing: bool = False) -> float:
    """A job's expected seconds of case work; 0 for a job without a kernel (nothing runs)."""
    if job.kernel is None:
        return 0.0
    tuned = autotuned(job)
    return sum(case_seconds(job, i, timing, tuned) for i in range(len(job.cases)))


def shard_counts(seconds: list[float], cases: list[int], slots: int,
                 min_cases: int = MIN_CASES, startup_s: float = 0.0) -> list[int]:
    """How many shards each job gets (pure policy). While some slot would sit idle the
    longest piece is split again; once every slot is busy, only a piece longer than DOMINANT
    times a slot's share. A split is made only where it takes at least `startup_s` (the
    start-up the new shard's worker costs) off that piece. Never more shards than slots,
    never fewer than `min_cases` cases in a shard; a job of 0 s (no kernel, or already
    finished) is never split."""
    counts = [1] * len(seconds)
    total = sum(seconds)
    if slots < 2 or total <= 0:
        return counts
    share = total / slots
    while True:
        splittable = [i for i, w in enumerate(seconds)
                      if w > 0 and counts[i] < slots and cases[i] // (counts[i] + 1) >= min_cases]
        if not splittable:
            return counts
        longest = max(splittable, key=lambda i: seconds[i] / counts[i])
        piece, k = seconds[longest] / counts[longest], counts[longest]
        busy = sum(c for c, w in zip(counts, seconds) if w > 0)
        if busy >= slots and piece <= DOMINANT * share:
            return counts
        if piece - piece * k / (k + 1) < startup_s:
            return counts
        counts[longest] += 1


def split_cases(weights: list[float], shards: int, min_cases: int = MIN_CASES
                ) -> list[tuple[int, int]]:
    """`shards` contiguous [start, end) ranges of the cases, in plan order, of about equal
    weight, each holding at least `min_cases` cases (where there are that many)."""
    n = len(weights)
    shards = max(1, min(shards, n // max(1, min_cases) or 1))
    if not sum(weights):  # nothing known: cases count alike
        weights = [1.0] * n
    total = sum(weights)
    cumulative = [0.0]
    for w in weights:
        cumulative.append(cumulative[-1] + w)
    ranges, start = [], 0
    for k in range(1, shards):
        target = total * k / shards
        end = next((j for j in range(start + 1, n + 1) if cumulative[j] >= target), n)
        end = max(end, start + min_cases)
        end = min(end, n - (shards - k) * min_cases)
        ranges.append((start, end))
        start = end
    ranges.append((start, n))
    return ranges


@dataclass
class _Group:
    """One task split into shards: its whole job, its context, and its shards' works."""

    job: Job
    ctx: JobContext
    shards: list[Job]


def plan_shards(works: list[Work], slots: tuple[str, ...], mode: str,
                finished: Callable[[Work], bool], min_cases: int = MIN_CASES) -> list[int]:
    """Per work, how many shards it runs as (1: whole). `finished`: a resumed run's task that
    already has its verdict runs whole (it is reused, and weighs nothing)."""
    if mode == "off" or len(slots) < 2 or not works:
        return [1] * len(works)
    seconds = [0.0 if finished(w) else job_seconds(w[0], w[1].timing) for w in works]
    startup = 0.0 if mode == "on" else STARTUP_S[_kind(works[0][0])]
    return shard_counts(seconds, [len(job.cases) for job, _ in works], len(slots), min_cases,
                        startup)


def shard_jobs(job: Job, count: int, min_cases: int = MIN_CASES, timing: bool = False
               ) -> list[Job]:
    """The task's job as `count` shard jobs, contiguous in plan order. An autotuned kernel's
    shards are cut between shapes only, so each key's cases (its dtypes' standard, outlier
    and strided cases lie inside one shape's run of the plan) stay in one shard (a key split
    over two shards is tuned twice), about as many keys each (the calls' cost put the cut by
    FLOPs). On two H200s the two shards of a FlagGems-style matmul spent 240 s compiling and
    tuning between them, the slower 152 s, against the whole job's ~118 s floor (run 25)."""
    weights = [case_seconds(job, i, timing) for i in range(len(job.cases))]
    if autotuned(job):
        ranges = _between_shapes(job, weights, count, min_cases)
    else:
        ranges = split_cases(weights, count, min_cases)
    return [replace(job, cases=job.cases[a:b], shard=(k, len(ranges)))
            for k, (a, b) in enumerate(ranges)]


def _between_shapes(job: Job, weights: list[float], count: int, min_cases: int
                    ) -> list[tuple[int, int]]:
    """Contiguous case ranges whose cuts fall between two shapes' runs of the plan, of about
    equal weight counting each key's tuning; one range if no such cut leaves `min_cases`."""
    runs: list[tuple[int, int]] = []  # [start, end) of each shape's cases
    for i, case in enumerate(job.cases):
        if runs and job.cases[runs[-1][0]].shape.name == case.shape.name:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    tuning = [AUTOTUNE_KEY_S * len({_key(c) for c in job.cases[a:b]}) + sum(weights[a:b])
              for a, b in runs]
    cumulative = list(itertools.accumulate(tuning, initial=0.0))
    cuts = [0]
    for k in range(1, min(count, len(runs))):  # the shape boundary nearest each equal share
        target = cumulative[-1] * k / count
        if cuts[-1] + 1 >= len(runs):  # an earlier cut took the last boundary
            break
        cuts.append(min(range(cuts[-1] + 1, len(runs)),
                        key=lambda j: abs(cumulative[j] - target)))
    cuts = sorted(set(cuts)) + [len(runs)]
    ranges = [(runs[a][0], runs[b - 1][1]) for a, b in itertools.pairwise(cuts)]
    if any(b - a < min_cases for a, b in ranges):
        return [(0, len(job.cases))]
    return ranges


def run_sharded(works: list[Work], slots: tuple[str, ...], cancel: threading.Event, progress,
                reuse: Callable[[Work], P.JobRecord | None],
                placement: JobPlacement | None = None, mode: str = "auto",
                min_cases: int = MIN_CASES) -> ScheduleOutcome:
    """kgb.runner.schedule.run_works, with the jobs worth splitting run as shards and each
    split task merged and graded once its shards have all finished. Results: one per task in
    the order of `works` (a task with an unfinished shard has none: the run stopped)."""
    from kgb.runner.schedule import ScheduleOutcome, run_works

    if placement is not None:  # Ray's actors name their own job folders: whole jobs only
        mode = "off"
    plans = plan_shards(works, slots, mode, lambda w: reuse(w) is not None, min_cases)
    if all(count == 1 for count in plans):
        return run_works(works, slots, cancel, progress, reuse, placement)
    expanded: list[Work] = []
    owner: dict[int, int] = {}  # id of an expanded job -> its index in works
    groups: dict[int, _Group] = {}
    for index, ((job, ctx), count) in enumerate(zip(works, plans)):
        parts = shard_jobs(job, count, min_cases, ctx.timing) if count > 1 else [job]
        if len(parts) > 1:
            groups[index] = _Group(job, ctx, parts)
        expanded += [(part, ctx) for part in parts]
        owner.update((id(part), index) for part in parts)
    outcome = run_works(expanded, slots, cancel, _ShardProgress(progress, groups),
                        lambda w: _reuse_shard(w, reuse), placement)
    by_work: dict[int, list[tuple[Job, P.JobRecord]]] = {}
    for job, record in outcome.results:  # the schedule hands back the jobs it was given
        by_work.setdefault(owner[id(job)], []).append((job, record))
    results: list[tuple[Job, P.JobRecord]] = []
    failure = outcome.failure
    for index, (job, ctx) in enumerate(works):
        finished = by_work.get(index, [])
        group = groups.get(index)
        if group is None:
            results += finished
            continue
        if len(finished) < len(group.shards):
            continue  # the run stopped first: the finished shards' entries are the journal
        jobs_dir = ctx.out_dir / "jobs"
        try:
            results.append((job, merge_shards(jobs_dir / job.folder,
                                              [jobs_dir / s.folder for s in group.shards],
                                              ctx.out_dir, ctx.limits)))
        except Exception as exc:  # kgb's own failure: exit 3 with a partial report, as a job's
            failure = failure or InfraError(f"internal error merging the shards of "
                                            f"{job.task.id}: {exc!r}")
    return ScheduleOutcome(tuple(results), failure, outcome.interrupted)


def _reuse_shard(work: Work, reuse: Callable[[Work], P.JobRecord | None]
                 ) -> P.JobRecord | None:
    """A resumed shard's journal entry, only where it ran exactly this shard's cases (a run
    resumed on another number of slots splits its tasks otherwise)."""
    job, ctx = work
    record = reuse(work)
    if record is None or job.shard is None:
        return record
    try:
        plan = P.read(P.PlanRecord, ctx.out_dir / "jobs" / job.folder / PLAN_FILE, HOST_FILE_CAP)
    except P.ProtocolError:
        return None
    return record if tuple(c.id for c in plan.cases) == tuple(c.id for c in job.cases) \
        else None


class _ShardProgress:
    """The run's progress as one line per task: a split task starts with its first shard and
    is done when its last shard is (the schedule reports jobs by task id)."""

    def __init__(self, inner, groups: dict[int, _Group]) -> None:
        self.inner = inner
        self.lock = threading.Lock()
        self.sizes: dict[str, list[int]] = {}  # task id -> shards per split task of that id
        for group in groups.values():
            self.sizes.setdefault(group.job.task.id, []).append(len(group.shards))
        self.started: dict[str, int] = {}
        self.done_count: dict[str, int] = {}

    def start(self, name: str) -> None:
        with self.lock:
            first = self.started.get(name, 0) == 0
            self.started[name] = self.started.get(name, 0) + 1
        if first or name not in self.sizes:
            self.inner.start(name)

    def done(self, name: str, verdict: str) -> None:
        if name not in self.sizes:
            self.inner.done(name, verdict)
            return
        with self.lock:
            self.done_count[name] = self.done_count.get(name, 0) + 1
            sizes = self.sizes[name]
            last = bool(sizes) and self.done_count[name] >= sizes[0]
            if last:
                self.done_count[name] = 0
                count = sizes.pop(0)
                self.started[name] = 0
        if last:
            self.inner.done(name, f"{count} shards ran, grading")


# ------------------------------------------------------------------ the merge


@dataclass(frozen=True)
class _ShardFiles:
    folder: Path
    plan: P.PlanRecord
    execution: P.ExecRecord | None
    result: P.WorkerResult | P.ProtocolError | None
    judge: P.JudgeResult | None
    progress: P.Progress | None
    conditions: P.Conditions | None
    phases: P.HostPhases | None


def _read_shard(folder: Path) -> _ShardFiles:
    execution = read_optional(P.ExecRecord, folder / P.EXEC_FILE)
    return _ShardFiles(
        folder, P.read(P.PlanRecord, folder / PLAN_FILE, HOST_FILE_CAP), execution,
        read_result(folder / P.OUT_DIR) if execution is not None else None,
        read_optional(P.JudgeResult, folder / P.JUDGE_FILE, P.JUDGE_MAX_BYTES),
        read_progress(folder / P.OUT_DIR / P.PROGRESS_FILE),
        read_optional(P.Conditions, folder / CONDITIONS_FILE),
        read_optional(P.HostPhases, folder / P.PHASES_FILE))


def ended(shard: _ShardFiles) -> bool:
    """Whether this shard's job ended outside its cases: the unsharded job would have ended
    there too, at this shard's first case, whatever the later shards did."""
    if shard.plan.findings or shard.execution is None:
        return True
    result = shard.result
    return shard.execution.timed_out or not isinstance(result, P.WorkerResult) \
        or result.error_kind is not None


def merge_shards(task_dir: Path, shard_dirs: list[Path], out_root: Path, limits: Limits
                 ) -> P.JobRecord:
    """Write the task's folder as the unsharded job would have left it, from its shards'
    folders (inside it, in plan order: each holds a contiguous run of the task's cases),
    grade it (kgb.runner.grade.grade) and journal it (verdict.json, last). `limits`: the
    run's, from which the whole job's budgets follow (kgb.sandbox.base.job_limits)."""
    files = [_read_shard(d) for d in shard_dirs]
    first = files[0]
    if any(f.plan.findings != first.plan.findings or f.plan.task_id != first.plan.task_id
           for f in files):
        raise P.ProtocolError("the shards' tasks or layer-1 findings differ")
    keep = {d.name for d in shard_dirs}
    for entry in list(task_dir.iterdir()):  # an earlier attempt's files never mix in
        if entry.name not in keep:
            _remove(entry)
    specs = [c for f in files for c in f.plan.cases]
    whole = job_limits(limits, len(specs))
    stop = next((f for f in files if ended(f)), None)
    budget = stop.plan if stop is not None else replace(
        first.plan, timeout_s=whole.wall_time_s, compile_budget_s=whole.compile_time_s)
    plan = replace(first.plan, cases=tuple(specs), timeout_s=budget.timeout_s,
                   compile_budget_s=budget.compile_budget_s)
    write_json_atomic(task_dir / PLAN_FILE, P.to_json(plan), indent=1)
    out = task_dir / P.OUT_DIR
    out.mkdir()
    if stop is not None:
        _copy_ended(stop, files, task_dir)
    else:
        _write_merged(files, task_dir, _over_run_time(files, whole.wall_time_s,
                                                      whole.compile_time_s))
    worst = next((f.conditions for f in files if f.conditions is not None
                  and (f.conditions.throttled or f.conditions.neighbours)), None) \
        or next((f.conditions for f in files if f.conditions is not None), None)
    if worst is not None:
        write_json_atomic(task_dir / CONDITIONS_FILE, P.to_json(worst))
    phases = [f.phases for f in files if f.phases is not None]
    if phases:  # the host's work for the task, summed over its shards
        write_json_atomic(task_dir / P.PHASES_FILE, P.to_json(P.HostPhases(
            *(round(sum(getattr(p, k) for p in phases), 4)
              for k in ("static_s", "sandbox_s", "judge_s", "grade_s", "total_s")))))
    facts = tuple(P.ShardFacts(k + 1, tuple(c.id for c in f.plan.cases), f.plan.slot,
                               str(f.folder.relative_to(out_root)),
                               round(f.execution.wall_s, 3) if f.execution else None)
                  for k, f in enumerate(files))
    write_json_atomic(task_dir / SHARDS_FILE, P.to_json(facts), indent=1)
    record = grade(task_dir, out_root)
    write_finished(task_dir, record)
    return record


def _copy_ended(stop: _ShardFiles, files: list[_ShardFiles], task_dir: Path) -> None:
    """The files of the shard that ended the job, as the task's: its sandbox record, its
    worker's result file byte for byte (a tampered one stays tampered), and its progress with
    the earlier shards' cases counted as done."""
    if stop.execution is not None:
        write_json_atomic(task_dir / P.EXEC_FILE, P.to_json(stop.execution), indent=1)
    for name, cap in ((P.RESULT_FILE, P.RESULT_MAX_BYTES + 1), (P.TRACEBACK_FILE, 1 << 20)):
        _copy_capped(stop.folder / P.OUT_DIR / name, task_dir / P.OUT_DIR / name, cap)
    _copy_capped(stop.folder / P.STDERR_LOG, task_dir / P.STDERR_LOG, 1 << 20)
    if stop.progress is not None:
        before = sum(len(f.plan.cases) for f in files[:files.index(stop)])
        write_json_atomic(task_dir / P.OUT_DIR / P.PROGRESS_FILE, P.to_json(
            replace(stop.progress, cases_done=before + stop.progress.cases_done)))


def _charged(shard: _ShardFiles) -> tuple[float, float, float]:
    """A shard's worker life on its supervisor's clock (frozen seconds left out), the start-up,
    compile and CPU-wait credit its supervisor gave (capped at the shard's compile budget:
    kgb/sandbox/_supervisor.py, past_deadline), and its start-up alone."""
    e = shard.execution
    if e is None:
        return 0.0, 0.0, 0.0
    life = e.worker_s if e.worker_s is not None else e.wall_s
    credit = (e.compile_s or 0.0) + (e.startup_s or 0.0) + (e.waited_s or 0.0)
    return life, min(shard.plan.compile_budget_s, credit), e.startup_s or 0.0


def run_seconds(files: list[_ShardFiles], compile_budget_s: float) -> float:
    """The run time the shards took together, counted as one job's supervisor would: their
    lives less their credit, the credit capped at the task's compile budget plus the start-ups
    that sharding added (kgb's, not the kernel's). Uncapped, each shard's own compile budget
    would let a kernel claiming compile intervals run `compile` longer per shard."""
    charged = [_charged(f) for f in files]
    startups = [s for _, _, s in charged]
    extra = sum(startups) - max(startups, default=0.0)
    credit = min(compile_budget_s + extra, sum(c for _, c, _ in charged))
    return max(0.0, sum(life for life, _, _ in charged) - credit)


def _over_run_time(files: list[_ShardFiles], timeout_s: float, compile_budget_s: float
                   ) -> str | None:
    """Each shard may run the whole `--timeout` (a hang is stopped as soon as in one job),
    but the task's run-time budget is one: the shards' run times together past it is a
    timeout, as the unsharded job would have been stopped (docs/decisions.md, s29 h2). The
    note for the sandbox record, or None."""
    used = run_seconds(files, compile_budget_s)
    if used <= timeout_s:
        return None
    return (f"the {len(files)} shards' run times add up to {used:.1f} s, past the task's "
            f"run-time budget of {timeout_s:g} s: one job would have been stopped")


def _write_merged(files: list[_ShardFiles], task_dir: Path, over: str | None = None) -> None:
    """Every shard ran its cases: one result, one sandbox record and one judgement over the
    union, in plan order. A shard whose judge failed leaves the task unjudged (no judge.json,
    its judge.log), as a failed judge leaves an unsharded job: unverified, never incorrect.
    `over`: the shards' run times exceeded the task's budget — the record says timed out."""
    results = [_own(f.result, f.plan) for f in files if isinstance(f.result, P.WorkerResult)]
    execs = [_own_exec(f.execution, f.plan, files) for f in files if f.execution is not None]
    result = P.WorkerResult(
        stage=results[-1].stage, cases=tuple(c for r in results for c in r.cases),
        autotune_first_config=any(r.autotune_first_config for r in results),
        interpreter_fixes=tuple(dict.fromkeys(x for r in results for x in r.interpreter_fixes)),
        timed=tuple(t for r in results for t in r.timed),
        compile_s=round(sum(r.compile_s for r in results), 4),
        late_check_s=round(sum(r.late_check_s or 0.0 for r in results), 4))
    write_json_atomic(task_dir / P.OUT_DIR / P.RESULT_FILE, P.to_json(result))
    merged = _merged_exec(execs)
    if over is not None:
        merged = replace(merged, timed_out=True, returncode=None, notes=(*merged.notes, over))
        write_json_atomic(task_dir / P.OUT_DIR / P.PROGRESS_FILE, P.to_json(P.Progress(
            "done", len(result.cases), result.compile_s,
            round(sum(_charged(f)[0] for f in files), 3))))
    write_json_atomic(task_dir / P.EXEC_FILE, P.to_json(merged), indent=1)
    traceback = next((f.folder / P.OUT_DIR / P.TRACEBACK_FILE for f in files
                      if (f.folder / P.OUT_DIR / P.TRACEBACK_FILE).is_file()), None)
    if traceback is not None:
        _copy_capped(traceback, task_dir / P.OUT_DIR / P.TRACEBACK_FILE, 1 << 20)
    unjudged = next((f for f in files if f.judge is None), None)
    if unjudged is not None:
        _copy_capped(unjudged.folder / P.JUDGE_LOG, task_dir / P.JUDGE_LOG, 64 << 10)
        return
    judges = [f.judge for f in files if f.judge is not None]
    write_json_atomic(task_dir / P.JUDGE_FILE, P.to_json(P.JudgeResult(
        cases=ghosts_over_union(tuple(c for j in judges for c in j.cases)),
        timed_checks=tuple(c for j in judges for c in j.timed_checks),
        baselines=tuple(b for j in judges for b in j.baselines),
        phases=tuple(p for j in judges for p in j.phases))))


def ghosts_over_union(cases: tuple[P.CaseJudgement, ...]) -> tuple[P.CaseJudgement, ...]:
    """The judge's one rule over a job's cases, again over the task's: where no ghost call of
    a job could tell (each one's answer was what a no-op leaves), kgb.judge.ghost makes them
    INFRA (unverified, fail closed). Each shard's judge applied it to its own cases; over the
    union, a shard whose ghosts were all idle answers while another shard's ghost told gets
    them back as the inconclusive passes the unsharded judge gives them (its message no
    longer names which idle answer: the shard's judge replaced it)."""
    ghosts = [c for case in cases for c in case.calls if c.kind == P.CallKind.GHOST]
    if not any(c.status == P.CaseStatus.INFRA for c in ghosts):
        return cases
    from kgb.judge import ghost

    told = any(c.status in (P.CaseStatus.PASSED, P.CaseStatus.FAILED)
               and not c.message.startswith(ghost.INCONCLUSIVE[:13]) for c in ghosts)
    if not told:
        return cases
    back = ghost.INCONCLUSIVE.format(what="what a no-op leaves")

    def undo(call: P.CallJudgement) -> P.CallJudgement:
        if call.kind == P.CallKind.GHOST and call.status == P.CaseStatus.INFRA \
                and call.message == ghost.UNABLE:
            return replace(call, status=P.CaseStatus.PASSED, message=back)
        return call

    return tuple(replace(case, calls=tuple(undo(c) for c in case.calls)) for case in cases)


def _own(result: P.WorkerResult, plan: P.PlanRecord) -> P.WorkerResult:
    """A shard's worker speaks for its own cases only: a record or timing it wrote for a case
    another shard ran (a forged clean record overriding that shard's evidence) is dropped, as
    an unknown case id is in one job."""
    own = {c.id for c in plan.cases}
    return replace(result, cases=tuple(c for c in result.cases if c.id in own),
                   timed=tuple(t for t in result.timed if t.case in own))


def _own_exec(execution: P.ExecRecord, plan: P.PlanRecord, files: list[_ShardFiles]
              ) -> P.ExecRecord:
    """The supervisor's marks and commits a shard's worker sent, less those naming a case of
    another shard (its timing-loop window or commitment would come first in the merge)."""
    own = {c.id for c in plan.cases}
    others = {c.id for f in files for c in f.plan.cases} - own
    return replace(execution,
                   marks=tuple(m for m in execution.marks
                               if m.label.partition(" ")[2] not in others),
                   commits=tuple(c for c in execution.commits if c.case not in others))


# How the sandbox records' fields merge where "the largest" is not the answer (below).
_SUMMED = frozenset({"compile_s"})  # budget spent in each shard
_LEAST = frozenset({"output_free"})
_FIRST = frozenset({"backend", "output_cap"})
_ALL = frozenset({"channel"})  # the supervisor's clock and notary were there for every shard
_CLOCKED = ("t", "start", "end")  # seconds since the worker started, on its supervisor's clock


def _merged_exec(execs: list[P.ExecRecord]) -> P.ExecRecord:
    """The shards' sandbox records as one, laid end to end as one worker would have run them:
    each shard's clocked evidence (marks, commits, any window) is moved past the shards
    before it, so what is read within one case (its timing loop's start and end marks, its
    commits) keeps its own shard's intervals and no two shards' overlap. The times are the
    longest shard's (they ran side by side), the compile time their sum; the output folder's
    use is the fullest shard's, so a worker's "it was full" is weighed as leniently as its own
    shard allows (it only ever costs the kernel its speedup)."""
    offsets, at = [], 0.0
    for e in execs:
        offsets.append(at)
        at += (e.worker_s if e.worker_s is not None else e.wall_s) + 1.0
    merged: dict = {}
    for f in fields(P.ExecRecord):
        name, values = f.name, [getattr(e, f.name) for e in execs]
        if name == "returncode":
            merged[name] = next((v for v in values if v != 0), values[0])
        elif name == "stderr_tail":
            merged[name] = next((v for v in reversed(values) if v), "")
        elif name in _FIRST:
            merged[name] = values[0]
        elif all(isinstance(v, bool) for v in values):
            merged[name] = all(values) if name in _ALL else any(values)
        elif all(isinstance(v, tuple) for v in values):
            merged[name] = tuple(_shifted(item, offset)
                                 for v, offset in zip(values, offsets) for item in v)
        elif any(v is None for v in values):
            merged[name] = None
        elif name in _SUMMED:
            merged[name] = round(sum(values), 4)
        else:
            merged[name] = min(values) if name in _LEAST else max(values)
    return P.ExecRecord(**merged)


def _shifted(item, offset: float):
    """A piece of clocked evidence moved `offset` seconds later (other items unchanged)."""
    if not is_dataclass(item) or isinstance(item, type):
        return item
    moved = {k: getattr(item, k) + offset for k in _CLOCKED
             if isinstance(getattr(item, k, None), float)}
    return replace(item, **moved) if moved else item


def _copy_capped(source: Path, target: Path, cap: int) -> None:
    """At most `cap` bytes of a regular file the worker or judge wrote (nothing if absent)."""
    if source.is_symlink() or not source.is_file():
        return
    with open(source, "rb") as f:
        data = f.read(cap)
    target.write_bytes(data)


def _remove(entry: Path) -> None:
    import shutil

    if entry.is_dir() and not entry.is_symlink():
        shutil.rmtree(entry, ignore_errors=True)
    else:
        entry.unlink(missing_ok=True)
