"""Grading one job folder from its files alone — what a run does after its worker and judge
finished, and what `kgb report OUT --regrade` does later without running anything. Because a
run grades through this very function, a run and its regrade cannot disagree.

Files of a job folder (kgb.protocol): plan.json (host, before running), job.json (the
worker's instructions), exec.json (what the sandbox saw), out/result.json (the worker's
claims, parsed as hostile input), judge.json (the trusted comparison), verdict.json (the
result of grading: the journal entry)."""

from __future__ import annotations

from pathlib import Path

from kgb import protocol as P
from kgb.runner.interpreter import AUTOTUNE, InterpreterLimits
from kgb.runner.verdict import Result, decide

PLAN_FILE = "plan.json"
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


def grade(job_dir: Path, out_root: Path) -> P.JobRecord:
    plan = P.read(P.PlanRecord, job_dir / PLAN_FILE, HOST_FILE_CAP)
    execution = _optional(P.ExecRecord, job_dir / P.EXEC_FILE)
    result = read_result(job_dir / P.OUT_DIR) if execution is not None else None
    judge = _optional(P.JudgeResult, job_dir / P.JUDGE_FILE, P.JUDGE_MAX_BYTES)
    worker = result if isinstance(result, P.WorkerResult) else None
    limits = None
    if plan.slot == "cpu":
        limits = InterpreterLimits(frozenset(plan.interpreter_features),
                                   frozenset(worker.interpreter_fixes if worker else ()))
    verdict = decide(plan, execution, result, judge, limits)
    return P.JobRecord(verdict, job_facts(job_dir, out_root, plan, execution, worker, verdict))


def job_facts(job_dir: Path, out_root: Path, plan: P.PlanRecord, execution: P.ExecRecord | None,
              worker: P.WorkerResult | None, verdict: P.VerdictRecord) -> P.JobFacts:
    note = None
    if worker and worker.autotune_first_config and AUTOTUNE in plan.interpreter_features:
        note = "autotune ran its first config only (CPU interpreter)"
    timing = worker.timing if worker else None
    timed = timing is not None and verdict.verdict == P.Verdict.PASSED
    return P.JobFacts(
        log_dir=str(job_dir.relative_to(out_root)), device=plan.slot,
        worker_wall_s=round(execution.wall_s, 3) if execution else None,
        interpreter_limits=tuple(sorted(plan.interpreter_features)),
        interpreter_fixes=tuple(worker.interpreter_fixes[:8]) if worker else (),
        note=note, time_ms=timing.median_ms if timed and timing else None,
        timed_case=timing.case if timed and timing else None)


def _optional(cls, path: Path, cap: int = HOST_FILE_CAP):
    """A file the trusted side wrote, or None where the job never got that far."""
    if not path.exists():
        return None
    return P.read(cls, path, cap)
