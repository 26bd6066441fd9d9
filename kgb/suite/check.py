"""`kgb suite check`: every task's own solution through the whole pipeline — the chip vendor's
hardware adaptation check. Which tasks compile, run, are correct, how fast against PyTorch on
this device and how close to its peak; written as OUT/adaptation.md (and the run's
report.json beside it). On a new device, a task whose solution fails here is the stack's
problem, not a generator's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgb.metrics.suite import compiled


def _fmt(value: float | None, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def _untimed(env: dict[str, Any]) -> str:
    if not env.get("timings_meaningful", True):
        return " (CPU runs are not timed)"
    return " (correctness only: --timing off)" if env.get("timing") in (False, "off") else ""


def adaptation_table(report: dict[str, Any]) -> str:
    env = report["environment"]
    rates = report["summary"]["rates"]
    lines = [f"# Suite adaptation check: {env.get('device_name')}", "",
             f"kgb {env.get('kgb')}, torch {env.get('torch')}, triton {env.get('triton')}, "
             f"sandbox {(env.get('sandbox') or {}).get('backend')}, seed {report['seed']}.", "",
             f"{rates['correct']} of {rates['tasks']} tasks correct, {rates['compiled']} "
             f"compiled; geomean speedup over PyTorch eager: "
             f"{_fmt(rates.get('geomean_speedup_eager'), '.2f')}{_untimed(env)}.",
             "",
             "| task | compiled | verdict | cases | speedup vs eager | vs torch.compile | "
             "fraction of peak | note |", "|---|---|---|---|---|---|---|---|"]
    # a merge of correctness checks on several GPU models names each row's (merge_adaptation)
    by_model = any("device_name" in job for job in report["jobs"])
    if by_model:
        lines[-2:] = [lines[-2] + " GPU |", lines[-1] + "---|"]
    for job in report["jobs"]:
        cov = job.get("coverage") or {}
        timings = job.get("timings") or []
        peak = max((max(t.get("bandwidth_fraction") or 0.0, t.get("flops_fraction") or 0.0)
                    for t in timings), default=None)
        note = "" if job["verdict"] == "passed" else (job.get("message") or "")[:120]
        note = note.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {job['task']} | {'yes' if compiled(job) else 'no'} | {job['verdict']} "
                     f"| {cov.get('passed', 0)}/{cov.get('cases', 0)} "
                     f"| {_fmt(job.get('speedup_eager'), '.2f')} "
                     f"| {_fmt(job.get('speedup_compile'), '.2f')} "
                     f"| {_fmt(peak or None, '.0%')} | {note} |"
                     + (f" {job.get('device_name') or ''} |" if by_model else ""))
    return "\n".join(lines) + "\n"


def run_suite_check(tasks_dir: Path, out: Path, *, device: str = "auto", sandbox: str = "auto",
                    only: tuple[str, ...] | None = None, jobs: int = 1,
                    timeout_s: float | None = None, force: bool = False,
                    devices: str | None = None, timing: bool = True,
                    baselines: str = "all", resume: bool = False) -> dict[str, Any]:
    from kgb.runner.verify import VerifyOptions, run_verify
    from kgb.suite.corpus import write_submission
    from kgb.tasks.loader import load_suite

    suite = load_suite(tasks_dir)
    chosen = [t for t in sorted(suite) if only is None or t in only]
    kernels = {t: suite[t].solution_path.read_text() for t in chosen}
    out.mkdir(parents=True, exist_ok=True)
    sub = write_submission(out / "solutions", kernels, name="suite-solutions")
    report = run_verify(VerifyOptions(submission=sub, tasks_dir=tasks_dir, out_dir=out / "run",
                                      device=device, sandbox=sandbox, only=tuple(chosen),
                                      jobs=jobs, timeout_s=timeout_s, force=force,
                                      devices=devices, timing=timing, baselines=baselines,
                                      resume=resume),
                         quiet=True)
    (out / "adaptation.md").write_text(adaptation_table(report))
    return report
