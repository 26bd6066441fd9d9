"""Build and write report.json (schema in docs/formats.md). The seed is revealed here, after
the run: generators could not have known it while writing kernels."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kgb.errors import BadInput
from kgb.report.environment import collect
from kgb.runner.verdict import VERDICTS

SCHEMA_VERSION = 1


def job_entry(job, verdict, facts: dict) -> dict[str, Any]:
    checked = [c for c in verdict.cases if c.status in ("passed", "failed")]
    plan = {c.id: c for c in job.cases}
    return {
        "task": job.task.id, "category": job.task.category,
        "kernel": job.kernel.file if job.kernel else None,
        "verdict": verdict.verdict, "rule": verdict.rule, "layer": verdict.layer,
        "message": verdict.message, "location": verdict.location or None,
        "coverage": verdict.coverage(),
        "max_abs_err": _max(c.max_abs for c in checked),
        "max_rel_l2_err": _max(c.rel_l2 for c in checked),
        # A simple CUDA-event median on the largest case (GPU only); null on the CPU
        # interpreter, where no timing is meaningful. The full protocol lands with kgb.bench.
        "time_ms": facts.get("time_ms") if verdict.verdict == "passed" else None,
        "cases": [dict(c.to_dict(), shape=plan[c.id].shape.name, dims=plan[c.id].shape.as_dict(),
                       dtype=plan[c.id].dtype, mode=plan[c.id].mode) for c in verdict.cases],
        **{k: v for k, v in facts.items() if k != "time_ms"},
    }


def build_report(*, seed: int, devices: tuple[str, ...], sandbox, submission, results,
                 complete: bool, limits, pricing: Path | None = None) -> dict[str, Any]:
    jobs = [job_entry(job, verdict, facts) for job, verdict, facts in results]
    counts = {v: 0 for v in VERDICTS}
    for j in jobs:
        counts[j["verdict"]] += 1
    report: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "complete": complete,
        "environment": dict(collect(devices[0], sandbox.describe()), devices=list(devices)),
        "limits": {k: getattr(limits, k) for k in limits.__dataclass_fields__},
        "seed": seed,
        "submission": submission.describe(),
        "manifest": {"tasks": [k.task for k in submission.kernels],
                     "tokens": submission.declared_tokens},
        "jobs": jobs,
        "summary": {"total": len(jobs), "counts": counts,
                    "submitted": sum(j["verdict"] != "missing" for j in jobs)},
    }
    if submission.token_log is not None:
        report["cost"] = _cost(submission, jobs, pricing)
    return report


def _cost(submission, jobs: list[dict], pricing: Path | None) -> dict:
    from kgb.cost import cost_section

    return cost_section(submission.token_log, pricing, [k.task for k in submission.kernels], jobs,
                        submission.declared_tokens)


def _max(values) -> float | None:
    vals = [v for v in values if v is not None]
    return max(vals) if vals else None


def write_report(report: dict, out_dir: Path) -> Path:
    path = out_dir / "report.json"
    tmp = out_dir / "report.json.tmp"
    tmp.write_text(json.dumps(report, indent=1, default=str))
    os.replace(tmp, path)
    return path


def read_report(out_dir: Path) -> dict[str, Any]:
    """A report written by `kgb verify`, checked enough to render; bad input otherwise."""
    path = out_dir / "report.json" if out_dir.is_dir() else out_dir
    try:
        report = json.loads(path.read_text())
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file; pass the --out folder of a `kgb verify` run") \
            from None
    except (OSError, ValueError) as exc:
        raise BadInput(f"{path}: not a readable report ({exc}); re-run `kgb verify`") from None
    if not isinstance(report, dict) or report.get("schema_version") != SCHEMA_VERSION:
        raise BadInput(f"{path}: not a schema {SCHEMA_VERSION} kgb report; re-run `kgb verify` "
                       f"with this kgb")
    missing = [k for k in ("environment", "jobs", "summary", "seed", "submission", "complete")
               if k not in report]
    if missing:
        raise BadInput(f"{path}: report has no {missing[0]!r}; re-run `kgb verify`")
    return report
