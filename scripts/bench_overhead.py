"""kgb's own cost per kernel, from the job folders of finished runs (docs/performance.md).

    .venv/bin/python scripts/bench_overhead.py OUT [OUT ...] [--json]

For every job that ran (phases.json present), splits the job's wall time into steps
(kgb.metrics.overhead: sandbox start, CUDA start, compile/autotune, correctness, anti-cheat,
timing, baselines, host) and prints medians per kernel, each bucket's share, what layers 2-3 add
over plain correctness checking, the kernels' own device time where they were timed, and
kernels verified per hour (serially, and at the run's own --jobs). Not a test: the figures
depend on the machine."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from kgb import protocol as P
from kgb.metrics.overhead import ANTICHEAT, BUCKETS, CORRECTNESS, JobOverhead, job_overhead

CAP = 64 << 20


def _read(cls, path: Path, cap: int = CAP):
    try:
        return P.read(cls, path, cap) if path.exists() else None
    except P.ProtocolError:
        return None


def job(job_dir: Path) -> JobOverhead | None:
    host = _read(P.HostPhases, job_dir / P.PHASES_FILE)
    if host is None:
        return None
    return job_overhead(host, _read(P.ExecRecord, job_dir / P.EXEC_FILE),
                        _read(P.WorkerResult, job_dir / P.OUT_DIR / P.RESULT_FILE,
                              P.RESULT_MAX_BYTES),
                        _read(P.JudgeResult, job_dir / P.JUDGE_FILE, P.JUDGE_MAX_BYTES))


def run_span(run: Path) -> float | None:
    """First plan written to last verdict written: the run's wall time at its own --jobs."""
    plans = [p.stat().st_mtime for p in run.glob("jobs/*/plan.json")]
    verdicts = [p.stat().st_mtime for p in run.glob(f"jobs/*/{P.VERDICT_FILE}")]
    return max(verdicts) - min(plans) if plans and verdicts else None


def summarize(runs: list[Path]) -> dict:
    jobs: dict[str, JobOverhead] = {}
    spans = []
    for run in runs:
        for job_dir in sorted((run / "jobs").glob("*")):
            found = job(job_dir)
            if found is not None and found.steps and any(s.name == "primary calls"
                                                          for s in found.steps):
                jobs[f"{run}/{job_dir.name}"] = found
        span = run_span(run)
        if span:
            spans.append((span, sum(1 for k in jobs if k.startswith(f"{run}/"))))
    if not jobs:
        return {"jobs": 0}
    totals = [j.total_s for j in jobs.values()]
    buckets = {b: [j.bucket(b) for j in jobs.values()] for b in BUCKETS}
    steps: dict[str, list[float]] = {}
    for j in jobs.values():
        for s in j.steps:
            steps.setdefault(s.name, []).append(s.seconds)
    kernels = [j.kernel_ms for j in jobs.values() if j.kernel_ms is not None]
    correctness = sum(buckets[CORRECTNESS])
    return {
        "jobs": len(jobs),
        "total_s": {"median": statistics.median(totals), "mean": statistics.fmean(totals)},
        "buckets": {b: {"median": statistics.median(v), "share": sum(v) / sum(totals)}
                    for b, v in buckets.items()},
        "steps": {n: {"median": statistics.median(v), "max": max(v)} for n, v in steps.items()},
        "anticheat_over_correctness": sum(buckets[ANTICHEAT]) / correctness if correctness
        else None,
        "kernel_ms_median": statistics.median(kernels) if kernels else None,
        "kernels_per_hour_serial": 3600 / statistics.fmean(totals),
        "kernels_per_hour_run": 3600 * sum(n for _, n in spans) / sum(s for s, _ in spans)
        if spans else None,
    }


def render(summary: dict, console: Console) -> None:
    if not summary["jobs"]:
        console.print("no job with phases.json that ran a case (runs from kgb before phases.json, "
                      "or only rejected/missing jobs)")
        return
    console.print(f"{summary['jobs']} jobs; per job: median {summary['total_s']['median']:.2f} s, "
                  f"mean {summary['total_s']['mean']:.2f} s")
    table = Table("bucket", "median s per job", "share of all job time")
    for name, row in summary["buckets"].items():
        table.add_row(name, f"{row['median']:.3f}", f"{100 * row['share']:.1f} %")
    console.print(table)
    table = Table("step", "median s", "max s")
    for name, row in summary["steps"].items():
        table.add_row(name, f"{row['median']:.3f}", f"{row['max']:.3f}")
    console.print(table)
    ratio = summary["anticheat_over_correctness"]
    if ratio is not None:
        console.print(f"anti-cheat time / correctness time: {ratio:.2f}")
    if summary["kernel_ms_median"] is not None:
        console.print(f"kernel device time (median per call, summed over timed cases): "
                      f"{summary['kernel_ms_median']:.4f} ms")
    console.print(f"kernels verified per hour: {summary['kernels_per_hour_serial']:.0f} one at a "
                  "time" + (f", {summary['kernels_per_hour_run']:.0f} at the run's --jobs"
                            if summary["kernels_per_hour_run"] else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    summary = summarize(args.runs)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        render(summary, Console(highlight=False, markup=False))
    return 0 if summary["jobs"] else 1


if __name__ == "__main__":
    sys.exit(main())
