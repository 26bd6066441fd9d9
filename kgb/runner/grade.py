"""Grading one job folder from its files alone — what a run does after its worker and judge
finished, and what `kgb report OUT --regrade` does later without running anything. Because a
run grades through this very function, a run and its regrade cannot disagree.

Files of a job folder (kgb.protocol): plan.json (host, before running), job.json (the
worker's instructions), exec.json (what the sandbox saw), out/result.json (the worker's
claims, parsed as hostile input), judge.json (the trusted comparison), verdict.json (the
result of grading: the journal entry)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kgb import protocol as P
from kgb.runner.interpreter import AUTOTUNE, InterpreterLimits
from kgb.runner.speed import SpeedResult, judge_speed
from kgb.runner.verdict import Result, decide

PLAN_FILE = "plan.json"
CONDITIONS_FILE = "conditions.json"  # the GPU's clocks and throttling around the job (host)
SHARDS_FILE = "shards.json"  # a task run as shards: which cases ran in which folder (host)
HOST_FILE_CAP = 64 << 20  # files kgb itself wrote: generous, but still bounded


def read_result(out_dir: Path) -> Result:
    """The worker's result: parsed, a ProtocolError for a file that is not what kgb's worker
    writes, or None when there is none (the worker died first)."""
    path = out_dir / P.RESULT_FILE
    if not path.exists() and not path.is_symlink():
        return None
    try:
        return P.read(P.WorkerResult, path, P.RESULT_MAX_BYTES)
    except P.ProtocolError as exc:
        return exc


def _judge_error(job_dir: Path) -> str | None:
    """The last line of the reference worker's traceback (judge.log), if it failed."""
    try:
        with open(job_dir / P.JUDGE_LOG, "rb") as f:
            tail = f.read(64 << 10).decode("utf-8", "replace")
    except OSError:
        return None
    lines = [ln.strip() for ln in tail.splitlines() if ln.strip()]
    return lines[-1] if lines else None


def _judge_kind(job_dir: Path) -> P.ErrorKind | None:
    """The kind the failed judge named (JUDGE_KIND_FILE, the trusted judge's), if any."""
    try:
        with open(job_dir / P.JUDGE_KIND_FILE, "rb") as f:
            return P.ErrorKind(f.read(64).decode("ascii", "replace").strip())
    except (OSError, ValueError):
        return None


def again_note(job_dir: Path) -> str | None:
    """Why the job ran again alone (AGAIN_FILE, the host's, kgb.runner.schedule), if it did."""
    try:
        with open(job_dir / P.AGAIN_FILE, "rb") as f:
            return f.read(400).decode("utf-8", "replace").strip() or None
    except OSError:
        return None


def grade(job_dir: Path, out_root: Path) -> P.JobRecord:
    plan = P.read(P.PlanRecord, job_dir / PLAN_FILE, HOST_FILE_CAP)
    execution = read_optional(P.ExecRecord, job_dir / P.EXEC_FILE)
    result = read_result(job_dir / P.OUT_DIR) if execution is not None else None
    judge = read_optional(P.JudgeResult, job_dir / P.JUDGE_FILE, P.JUDGE_MAX_BYTES)
    worker = result if isinstance(result, P.WorkerResult) else None
    limits = None
    if plan.slot == "cpu":
        limits = InterpreterLimits(frozenset(plan.interpreter_features),
                                   frozenset(worker.interpreter_fixes if worker else ()))
    progress = read_progress(job_dir / P.OUT_DIR / P.PROGRESS_FILE)
    verdict = decide(plan, execution, result, judge, limits, progress,
                     _judge_error(job_dir) if judge is None else None,
                     _judge_kind(job_dir) if judge is None else None)
    conditions = read_optional(P.Conditions, job_dir / CONDITIONS_FILE)
    speed = judge_speed(plan, execution, worker, judge, conditions) \
        if worker and worker.timed else None
    if speed is None and plan.slot != "cpu" and plan.timing and verdict.verdict == P.Verdict.PASSED:
        speed = SpeedResult((), None, ("the worker timed no case: no speed is reported",))
    if speed is not None and speed.violation is not None and verdict.verdict == P.Verdict.PASSED:
        rule, message = speed.violation
        verdict = P.VerdictRecord(P.Verdict.REJECTED, rule.id, rule.layer, message,
                                  cases=verdict.cases)
    facts = job_facts(job_dir, out_root, plan, execution, worker, verdict, speed, conditions)
    again = again_note(job_dir)
    if again is not None:  # kept in the facts, so a resumed run never runs it again
        facts = replace(facts, note="; ".join(n for n in (facts.note, again) if n))
    # Where a Ray run ran the job (kgb.placement): the host's record, so a regrade keeps it.
    placement = read_optional(P.Placement, job_dir / P.PLACEMENT_FILE)
    if placement:
        facts = replace(facts, placement=placement)
    # A task run as shards (kgb.runner.shards): which cases ran where, the host's record.
    if (job_dir / SHARDS_FILE).exists():
        facts = replace(facts, shards=P.read(tuple[P.ShardFacts, ...],
                                             job_dir / SHARDS_FILE, HOST_FILE_CAP))
    return P.JobRecord(verdict, facts)


def job_facts(job_dir: Path, out_root: Path, plan: P.PlanRecord, execution: P.ExecRecord | None,
              worker: P.WorkerResult | None, verdict: P.VerdictRecord,
              speed: SpeedResult | None = None,
              conditions: P.Conditions | None = None) -> P.JobFacts:
    note = None
    if worker and worker.autotune_first_config and AUTOTUNE in plan.interpreter_features:
        note = "autotune ran its first config only (CPU interpreter)"
    timings = speed.cases if speed else ()
    largest = max(timings, key=lambda t: t.bytes + t.flops, default=None)
    # Speedups only for a kernel that passed, timed under the supervisor's clock on a GPU
    # of its own that did not throttle (speed.counted): anything else is reported, not counted.
    counted = verdict.verdict == P.Verdict.PASSED and speed is not None and speed.counted and \
        execution is not None and execution.channel
    return P.JobFacts(
        log_dir=str(job_dir.relative_to(out_root)), device=plan.slot,
        worker_wall_s=round(execution.wall_s, 3) if execution else None,
        interpreter_limits=tuple(sorted(plan.interpreter_features)),
        interpreter_fixes=tuple(worker.interpreter_fixes[:8]) if worker else (),
        note=note, time_ms=largest.median_ms if largest else None,
        timed_case=largest.case if largest else None,
        speedup_eager=speedups(timings, "eager") if counted else None,
        speedup_compile=speedups(timings, "compile") if counted else None,
        timings=timings, speed_unchecked=speed.unchecked if speed else (),
        compile_s=worker.compile_s if worker else 0.0, conditions=conditions,
        traceback=_traceback(job_dir, verdict))


TRACEBACK_CAP = 8000  # characters of the worker's trimmed traceback carried into the report


def _traceback(job_dir: Path, verdict: P.VerdictRecord) -> str | None:
    """The trimmed traceback the worker kept (the kernel file's frames only), for the verdicts
    a traceback explains. Written by the untrusted worker: text, capped, shown escaped."""
    if verdict.verdict not in (P.Verdict.CRASHED, P.Verdict.COMPILE_ERROR):
        return None
    path = job_dir / P.OUT_DIR / P.TRACEBACK_FILE
    if not path.is_file() or path.is_symlink():
        return None
    with open(path, "rb") as f:
        return f.read(TRACEBACK_CAP).decode("utf-8", "replace")


def speedups(timings: tuple[P.CaseTiming, ...], baseline: str) -> float | None:
    from kgb.metrics.speed import geomean, speedup

    values = [speedup(getattr(t, f"{baseline}_ms"), t.median_ms) for t in timings]
    return geomean([v for v in values if v is not None])


def read_progress(path: Path) -> P.Progress | None:
    """The worker's progress file: untrusted, only used to word a timeout."""
    try:
        return P.read(P.Progress, path, 4096)
    except P.ProtocolError:
        return None


def read_optional(cls, path: Path, cap: int = HOST_FILE_CAP):
    """A file the trusted side wrote, or None where the job never got that far."""
    if not path.exists():
        return None
    return P.read(cls, path, cap)
