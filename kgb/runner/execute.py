"""One job, start to verdict: static layer, candidate in the sandbox, trusted judge, decision.

Each job has its own folder (SWE-bench's habit): job.json (what was asked), out/ (what the
candidate wrote), stdout.log / stderr.log (capped), judge.json, verdict.json — enough to
re-grade without running anything."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kgb
from kgb.anticheat.registry import Finding
from kgb.runner import interpreter_fixes
from kgb.runner.interpreter import scan
from kgb.runner.journal import write_finished
from kgb.runner.judge_pool import JudgePool
from kgb.runner.plan import Job
from kgb.runner.verdict import Verdict, decide
from kgb.sandbox.base import ExecResult, Limits, Sandbox, SandboxRequest

KGB_ROOT = Path(kgb.__file__).resolve().parent
JUDGE_TIMEOUT_S = 1800.0


@dataclass(frozen=True)
class JobContext:
    """What every job of a run shares."""

    run_id: str
    out_dir: Path
    sandbox: Sandbox
    limits: Limits
    submission_root: Path
    cancel: threading.Event = field(default_factory=threading.Event)  # set: the run is stopping
    judges: JudgePool | None = None  # the run's trusted judges; None: one pool per job


class JobCancelled(Exception):
    """The run was stopped while this job ran: it has no verdict and is not journaled."""


def run_job(job: Job, ctx: JobContext) -> tuple[Verdict, dict[str, Any]]:
    """Run one job to its verdict; returns the verdict and facts for the report."""
    job_dir = ctx.out_dir / "jobs" / job.task.id
    if job_dir.exists():
        shutil.rmtree(job_dir)
    job_dir.mkdir(parents=True)
    facts: dict[str, Any] = {"log_dir": str(job_dir.relative_to(ctx.out_dir))}
    planned = {c.id: None for c in job.cases}
    if job.kernel is None:
        return _finish(job_dir, decide(has_kernel=False, findings=[], execution=None, result=None,
                                       judge=None, limits=None, timeout_s=0, planned=planned),
                       facts)

    source = job.kernel.path.read_text(errors="replace")
    findings = static_findings(source, job)
    if findings:
        return _finish(job_dir, decide(has_kernel=True, findings=findings, execution=None,
                                       result=None, judge=None, limits=None, timeout_s=0,
                                       planned=planned), facts)

    interpreter = job.device == "cpu"
    limits = scan(source, interpreter_fixes.available()) if interpreter else None
    planned = {c.id: (limits.skip_reason(c.dtype) if limits else None) for c in job.cases}
    if limits and limits.features:
        facts["interpreter_limits"] = sorted(limits.features)
    out = job_dir / "out"
    out.mkdir()
    # Inside the sandbox the one visible GPU is always index 0.
    _write_job_json(job, job_dir, out, planned, interpreter,
                    "cpu" if interpreter else "cuda:0")
    execution = _run_candidate(job, job_dir, out, ctx)
    if ctx.cancel.is_set():
        raise JobCancelled(job.task.id)
    facts["worker_wall_s"] = round(execution.wall_s, 3)
    result = _read_json(out / "result.json")
    if isinstance(result, dict) and result.get("autotune_first_config") and limits and \
            "autotune" in limits.features:
        facts["note"] = "autotune ran its first config only (CPU interpreter)"
    if interpreter and isinstance(result, dict):
        facts["interpreter_fixes"] = [str(f) for f in result.get("interpreter_fixes", [])][:8]
    timing = result.get("timing") if isinstance(result, dict) else None
    if isinstance(timing, dict) and isinstance(timing.get("median_ms"), (int, float)):
        facts["time_ms"] = float(timing["median_ms"])
        facts["timed_case"] = str(timing.get("case"))
    judge = None
    if isinstance(result, dict) and not execution.timed_out:
        judge = _run_judge(job_dir, job.device, ctx)
        if ctx.cancel.is_set():
            raise JobCancelled(job.task.id)
        _prune_large_files((out, ctx.out_dir / "refcache" / job.task.id))
    verdict = decide(has_kernel=True, findings=[], execution=execution, result=result,
                     judge=judge, limits=limits, timeout_s=ctx.limits.wall_time_s,
                     planned=planned)
    return _finish(job_dir, verdict, facts)


def static_findings(source: str, job: Job) -> list[Finding]:
    """Layer 1. It always runs: a kgb that cannot import it fails, it never skips it."""
    from kgb.anticheat.static import analyze

    assert job.kernel is not None
    return analyze(source, job.kernel.file, job.entry, job.task.forbid, job.task.category)


def _write_job_json(job: Job, job_dir: Path, out: Path, planned: dict[str, str | None],
                    interpreter: bool, device: str) -> None:
    assert job.kernel is not None
    # The worker gets a copy of the task's inputs.py in its (read-only) job folder, never the
    # task folder: reference.py must not be readable inside the sandbox.
    inputs_copy = job_dir / "task_inputs.py"
    shutil.copyfile(job.task.inputs_path, inputs_copy)
    spec = {
        "task_id": job.task.id, "task_dir": str(job.task.folder),
        "inputs_path": str(inputs_copy), "layout_inputs": list(job.task.strided_inputs),
        "kernel_path": str(job.kernel.path),
        "entry": job.entry, "device": device, "interpreter": interpreter,
        "out_dir": str(out),
        "cases": [dict(c.to_dict(), skip=planned[c.id]) for c in job.cases],
    }
    (job_dir / "job.json").write_text(json.dumps(spec, indent=1))


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
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
        env["CUDA_VISIBLE_DEVICES"] = ""
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


def _run_candidate(job: Job, job_dir: Path, out: Path, ctx: JobContext) -> ExecResult:
    tmp_dir = Path(tempfile.mkdtemp(prefix=f"kgb-{ctx.run_id}-"))
    try:
        request = SandboxRequest(
            argv=(sys.executable, "-m", "kgb.runner.candidate", str(job_dir)),
            out_dir=out,
            ro_paths=runtime_paths() + (ctx.submission_root, job_dir),
            env=tuple(sorted(worker_env(job.device, tmp_dir, ctx.limits).items())),
            tmp_dir=tmp_dir, device=job.device, label=f"{ctx.run_id}/{job.task.id}",
            cwd=out, cancel=ctx.cancel)
        execution = ctx.sandbox.run(request, ctx.limits)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)
    (job_dir / "stdout.log").write_text(execution.stdout)
    (job_dir / "stderr.log").write_text(execution.stderr)
    return execution


def _run_judge(job_dir: Path, device: str, ctx: JobContext) -> dict | None:
    pool = ctx.judges or JudgePool(ctx.out_dir / "refcache", ctx.out_dir / "judges.log")
    try:
        status = pool.judge(job_dir, device, JUDGE_TIMEOUT_S, ctx.cancel)
    finally:
        if ctx.judges is None:
            pool.close()
    if status in ("timeout", "died"):
        (job_dir / "judge.log").write_text(f"the reference worker {status.replace('died', 'exited')}"
                                           f" without an answer (log: judges.log)")
    return _read_json(job_dir / "judge.json") if status == "ok" else None


EVIDENCE_BYTES = 16 << 20


def _prune_large_files(folders: tuple[Path, ...]) -> None:
    """GPU-sized outputs are judged, then dropped: job folders keep evidence files up to
    EVIDENCE_BYTES so a run does not leave gigabytes behind."""
    for folder in folders:
        for path in folder.glob("*.safetensors"):
            if path.stat().st_size > EVIDENCE_BYTES:
                path.unlink()


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text()[: 64 << 20])
    except (OSError, ValueError):
        return None


def _finish(job_dir: Path, verdict: Verdict, facts: dict[str, Any]) -> tuple[Verdict, dict]:
    write_finished(job_dir, verdict, facts)  # last: its presence marks the job finished
    return verdict, facts
