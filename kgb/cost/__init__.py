"""Token accounting and pricing: what generating a submission's kernels cost, per task, kernel,
model and submission, per correct and per fast_1 kernel, plus an audit of the token log.

`cost_section` is the one entry point `kgb verify` calls; `kgb cost` prints the same dict.
Definitions of every figure: docs/cost.md."""

from __future__ import annotations

from pathlib import Path

from kgb.cost import audit
from kgb.cost.figures import (
    Group,
    accumulate,
    attempts_per_success,
    by_key,
    group,
    outcomes,
    per_kernel,
)
from kgb.cost.findings import SEVERITIES, cap_per_code, finding, sort_findings
from kgb.cost.inputs import Context, read_manifest, read_report
from kgb.cost.pricing import PriceBook, load_pricing
from kgb.cost.usage import parse_log

SECTION_SCHEMA_VERSION = 1

__all__ = ["build_section", "cost_section", "section_from_files"]


def cost_section(tokens_path: Path, pricing_path: Path | None, manifest_tasks: list[str],
                 jobs: list[dict], declared: dict | None) -> dict:
    """The report's cost section (JSON-serializable; what `kgb cost --json` prints).

    jobs: report.json job entries ({"task", "verdict", optional "speedup"}); declared: the
    manifest's [submission.tokens] table or None. Raises BadInput when the token log or the
    pricing file cannot be read; problems inside the log are findings, never exceptions."""
    return build_section(tokens_path, pricing_path,
                         Context(manifest_tasks=manifest_tasks, jobs=jobs, declared=declared))


def section_from_files(tokens: Path, pricing: Path | None, report: Path | None,
                       manifest: Path | None) -> dict:
    """`kgb cost`: the same section, with verdicts from a report and/or a manifest file (the
    manifest file wins for kernel ids and declared totals when both are given)."""
    ctx = read_report(report) if report is not None else Context()
    if manifest is not None:
        m = read_manifest(manifest)
        ctx = Context(manifest_tasks=m.manifest_tasks, jobs=ctx.jobs,
                      declared=m.declared if m.declared is not None else ctx.declared)
    return build_section(tokens, pricing, ctx)


def build_section(tokens_path: Path, pricing_path: Path | None, ctx: Context) -> dict:
    book = load_pricing(pricing_path) if pricing_path is not None else None  # bad TOML: fail early
    log = parse_log(tokens_path)
    cells = accumulate(log.records)
    models = sorted({m for _, m in cells})
    matches = {m: book.match(m) if book else None for m in models}
    prices = {m: (x.price if x else None) for m, x in matches.items()}

    total = group(cells.values(), prices)
    tasks = by_key(cells, prices, 0)
    per_model = by_key(cells, prices, 1)
    manifest = set(ctx.manifest_tasks) if ctx.manifest_tasks is not None else None

    findings = audit.line_issues(log.issues)
    findings += audit.duplicate_request_ids(log.records)
    findings += audit.timing(log.records)
    if manifest is not None:
        findings += audit.unknown_tasks(log.records, manifest)
        findings += audit.kernels_without_tokens(ctx.manifest_tasks or [], set(tasks))
    if book is not None:
        findings += audit.unpriced(log.records, prices, book.source)
    elif total.calls:
        findings.append(finding("T208", "no pricing file given (--pricing): every cost is "
                                "unpriced", count=total.calls))
    declared_rows = None
    if ctx.declared is not None:
        found, declared_rows = audit.declared_totals(ctx.declared, total, log.excluded)
        findings += found
    findings = sort_findings(cap_per_code(findings))

    return {
        "schema_version": SECTION_SCHEMA_VERSION,
        "inputs": {"tokens": str(tokens_path), "pricing": book.source if book else None,
                   "manifest": ctx.manifest_tasks is not None, "verdicts": ctx.jobs is not None},
        "lines": {"read": log.lines, "used": len(log.records), "excluded": log.excluded},
        "shapes": _shapes(log.records),
        "pricing": _pricing(book, matches),
        "totals": total.to_dict(),
        "by_model": [{"model": m, **g.to_dict()} for m, g in per_model.items()],
        "by_task": [{"task": t, "in_manifest": (t in manifest) if manifest is not None else None,
                     **g.to_dict()} for t, g in tasks.items()],
        **_joined(ctx, total, tasks, prices),
        "declared": declared_rows,
        "findings": [f.to_dict() for f in findings],
        "finding_counts": {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES},
    }


def _shapes(records) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in records:
        counts[r.shape] = counts.get(r.shape, 0) + 1
    return dict(sorted(counts.items()))


def _pricing(book: PriceBook | None, matches: dict) -> dict:
    return {
        "source": book.source if book else None,
        "note": book.note if book else None,
        "models": [{"model": m, "priced": x is not None,
                    "matched": x.price.name if x else None, "rule": x.rule if x else None,
                    "prices_usd_per_million": x.price.to_dict() if x else None}
                   for m, x in matches.items()],
    }


def _joined(ctx: Context, total: Group, tasks: dict[str, Group], prices: dict) -> dict:
    """The figures that need the manifest or the verdicts; "unavailable" with a reason without."""
    if ctx.manifest_tasks is None and ctx.jobs is None:
        why = "no manifest or report given (--manifest / --report)"
        off = {"available": False, "reason": why}
        return {"by_kernel": {**off, "rows": []}, "per_correct_kernel": off,
                "per_fast_1_kernel": off, "attempts_per_success": off}
    out = outcomes(ctx.jobs) if ctx.jobs is not None else None
    if ctx.manifest_tasks is not None:
        kernel_ids = ctx.manifest_tasks
    else:
        assert out is not None  # one of the two is given (checked above)
        kernel_ids = sorted(out.verdicts)
    empty = group([], prices)
    rows = []
    for task in sorted(set(kernel_ids)):
        row: dict = {"task": task}
        if out is not None:
            row["verdict"] = out.verdicts.get(task)
            row["speedup"] = out.speedups.get(task)
            row["fast_1"] = (task in out.fast_1) if out.fast_1 is not None else None
        rows.append({**row, **tasks.get(task, empty).to_dict()})
    if out is None:
        why = "no verdicts given (--report)"
        off = {"available": False, "reason": why}
        return {"by_kernel": {"available": True, "reason": None, "rows": rows},
                "per_correct_kernel": off, "per_fast_1_kernel": off,
                "attempts_per_success": off}
    return {
        "by_kernel": {"available": True, "reason": None, "rows": rows},
        "per_correct_kernel": per_kernel(total, len(out.passed), "no kernel passed"),
        "per_fast_1_kernel": (per_kernel(total, len(out.fast_1), "no kernel is fast_1")
                              if out.fast_1 is not None else
                              {"available": False, "reason": out.fast_1_reason, "kernels": None}),
        "attempts_per_success": attempts_per_success(total, tasks, out.passed),
    }
