"""Build, write and read report.json (schema in docs/formats.md) — the one reader every
command uses (`kgb report`, `kgb cost --report`, `kgb report --regrade`). The seed is revealed
here, after the run: generators could not have known it while writing kernels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgb import protocol as P
from kgb.errors import BadInput
from kgb.jsonfiles import read_json, write_text_atomic

# 3: rates, fast_p, by_category and the composite are over the submitted kernels, not every
# suite task (coverage apart); submission.digest. Readers accept only their own version.
SCHEMA_VERSION = 3
REPORT_FILE = "report.json"
REPORT_MAX_BYTES = 256 << 20
SPEEDUP_FIELD = "speedup_eager"  # per job: baseline (PyTorch eager) time / kernel time
REQUIRED = ("environment", "jobs", "summary", "seed", "submission", "complete")


def job_entry(plan: P.PlanRecord, record: P.JobRecord) -> dict[str, Any]:
    verdict, facts = record.verdict, record.facts
    checked = [c for c in verdict.cases if c.status in (P.CaseStatus.PASSED,
                                                        P.CaseStatus.FAILED)]
    specs = {c.id: c for c in plan.cases}
    passed = verdict.verdict == P.Verdict.PASSED
    entry = {
        "task": plan.task_id, "category": plan.category, "kernel": plan.kernel_file,
        "verdict": verdict.verdict.value, "rule": verdict.rule, "layer": verdict.layer,
        "message": verdict.message, "location": verdict.location or None,
        "findings": [dict(rule=f.rule, message=f.message, location=f.location() or None)
                     for f in plan.findings],  # every static finding, not only the first
        "coverage": verdict.coverage(),
        # the task's shapes this device did not run (gpu_only on the CPU): a pass says nothing
        # about them, and its message names them
        "unrun_shapes": list(plan.unrun_shapes),
        "max_abs_err": _max(c.max_abs for c in checked),
        "max_rel_l2_err": _max(c.rel_l2 for c in checked),
        # A simple CUDA-event median on the largest case (GPU only); null on the CPU
        # interpreter, where no timing is meaningful, and for kernels that did not pass.
        "time_ms": facts.time_ms if passed else None,
        SPEEDUP_FIELD: facts.speedup_eager if passed else None,
        "speedup_compile": facts.speedup_compile if passed else None,
        "cases": [dict(P.to_json(c), shape=specs[c.id].shape, dims=specs[c.id].dims,
                       dtype=specs[c.id].dtype, mode=specs[c.id].mode,
                       layout=specs[c.id].layout) for c in verdict.cases],
        **{k: v for k, v in P.to_json(facts).items()
           if k not in ("time_ms", "speedup_eager", "speedup_compile")},
        # radon's maintainability index and cyclomatic complexity of the kernel file, measured
        # by the host when it planned the job (null: no kernel, or a file radon cannot parse).
        "code": P.to_json(plan.code) if plan.code is not None else None,
    }
    from kgb.metrics.composite import job_scores

    # speedup_median, shape_cv, c_op, composite (kgb/metrics/composite.py); a job that was not
    # timed (CPU interpreter, --timing off) has no speed figure and no composite.
    return dict(entry, **job_scores(entry, timed=plan.timing))


def summarize(jobs: list[dict[str, Any]], timed: bool | None = None) -> dict[str, Any]:
    """Verdict counts over every job; rates over the submitted kernels (kgb.metrics.suite)."""
    from kgb.metrics.composite import mean_composite
    from kgb.metrics.suite import by_category, rates

    counts = {v.value: 0 for v in P.Verdict}
    for j in jobs:
        counts[j["verdict"]] += 1
    return {"total": len(jobs), "counts": counts,
            "submitted": sum(j["verdict"] != P.Verdict.MISSING for j in jobs),
            "rates": rates(jobs, timed), "by_category": by_category(jobs, timed),
            "composite": mean_composite(jobs)}


def build_report(header: dict[str, Any], jobs: list[dict[str, Any]], complete: bool,
                 cost: dict | None = None) -> dict[str, Any]:
    """`header`: environment, limits, seed, submission and manifest (see `run_header`)."""
    from kgb.metrics.suite import timed_run
    from kgb.report.feedback import feedback

    jobs = [dict(j, feedback=feedback(j)) for j in jobs]
    report: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "complete": complete, **header,
                              "jobs": jobs,
                              "summary": summarize(jobs, timed_run(header.get("environment")))}
    if cost is not None:
        report["cost"] = cost
    return report


def run_header(*, seed: int, devices: tuple[str, ...], sandbox, submission, limits,
               static: bool = True, timing: bool = True,
               baselines: str = "all", cuda_graph: bool = False) -> dict[str, Any]:
    from kgb.report.environment import collect

    return {
        "environment": dict(collect(devices[0], sandbox.describe()), devices=list(devices),
                            static_layer="on" if static else "off",
                            timing="on" if timing else "off", baselines=baselines,
                            cuda_graph=cuda_graph),
        "limits": {k: getattr(limits, k) for k in limits.__dataclass_fields__},
        "seed": seed,
        "submission": submission.describe(),
        "manifest": {"tasks": [k.task for k in submission.kernels],
                     "tokens": submission.declared_tokens},
    }


def cost_for(token_log: Path | None, pricing: Path | None, manifest: dict,
             jobs: list[dict]) -> dict | None:
    if token_log is None:
        return None
    from kgb.cost import cost_section

    return cost_section(token_log, pricing, list(manifest.get("tasks") or []), jobs,
                        manifest.get("tokens"))


def write_report(report: dict, out_dir: Path) -> Path:
    return write_text_atomic(out_dir / REPORT_FILE, report_text(report))


def report_text(report: dict) -> str:
    """report.json's text: one job a line (json's C encoder; the indented encoder is pure
    Python, 0.06 s for a 463-row report, paid by every member of a batch), the rest indented."""
    parts = []
    for key, value in report.items():
        if key == "jobs" and isinstance(value, list) and value:
            body = "[\n" + ",\n".join("  " + json.dumps(row, default=str) for row in value) \
                + "\n ]"
        else:
            body = json.dumps(value, indent=1, default=str).replace("\n", "\n ")
        parts.append(f" {json.dumps(key)}: {body}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def read_report(path: Path) -> dict[str, Any]:
    """A report written by `kgb verify` (a run folder or the file), checked enough to render;
    bad input otherwise."""
    path = path / REPORT_FILE if path.is_dir() else path
    fix = "pass the --out folder of a `kgb verify` run, or re-run it"
    report = read_json(path, REPORT_MAX_BYTES, "report", fix)
    if not isinstance(report, dict) or report.get("schema_version") != SCHEMA_VERSION:
        version = report.get("schema_version") if isinstance(report, dict) else None
        raise BadInput(f"report {path} has schema_version {version!r}; this kgb reads "
                       f"{SCHEMA_VERSION}: re-run `kgb verify` with this kgb")
    missing = [k for k in REQUIRED if k not in report]
    if missing:
        raise BadInput(f"report {path} has no {missing[0]!r}; {fix}")
    if not isinstance(report["jobs"], list):
        raise BadInput(f"report {path}: `jobs` is not a list; {fix}")
    return report


def _max(values) -> float | None:
    vals = [v for v in values if v is not None]
    return max(vals) if vals else None
