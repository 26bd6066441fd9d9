"""`kgb compare`: runs of one submission on different hardware side by side. Per task: each
run's verdict and speedup over eager, P_hw (the share of timed runs where the kernel is correct
and at least 0.8× eager) and the composite over the runs (kgb/metrics/composite.py).

A run whose timings are not meaningful (the CPU interpreter, --timing off, --baselines none)
still shows its verdicts but is left out of P_hw and the composite: counting it would mark every
kernel slow on hardware that was never timed; with no timed run a task has no composite at all.
Rows are the tasks some run has a kernel for (suite tasks no run submitted are not rows), and
runs of different submissions are refused: P_hw over two submissions measures nothing.
docs/decisions.md, "Composite score"."""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kgb.errors import BadInput
from kgb.metrics.composite import P_HW_SPEEDUP, c_op, composite, p_hw
from kgb.report import view as V
from kgb.report.json_report import read_report


def _labels(reports: Sequence[dict[str, Any]]) -> list[str]:
    """Each run's device name, numbered where two runs share one."""
    names = [str(V.env(r).get("device_name") or V.env(r).get("device") or "?") for r in reports]
    return [f"{n} #{names[:i].count(n) + 1}" if names.count(n) > 1 else n
            for i, n in enumerate(names)]


def _task_row(task: str, category: str, entries: list[dict[str, Any] | None],
              timed: list[bool]) -> dict[str, Any]:
    timed_jobs = [j for j, t in zip(entries, timed) if t]
    correct = [j for j in timed_jobs if j and j.get("verdict") == "passed"]
    meds = [m for j in correct if (m := V.num(j.get("speedup_median"))) is not None]
    cvs = [c for j in correct if (c := V.num(j.get("shape_cv"))) is not None]
    shares = [s for j in timed_jobs if j and (s := c_op(j)) is not None]
    hw = p_hw(timed_jobs) if timed_jobs else None
    # Nothing correct on timed hardware: no speed to credit (0). Correct without a figure:
    # unknown (None), never 0. No timed run: no composite (a failed CPU kernel is not "0.00"
    # beside a passed one's "—").
    med = statistics.median(meds) if meds else (0.0 if timed_jobs and not correct else None)
    score = composite(med,
                      statistics.fmean(cvs) if cvs else None,
                      statistics.fmean(shares) if shares else None, hw) if timed_jobs else None
    return {"task": task, "category": category, "p_hw": hw, "composite": score,
            "runs": [None if j is None else {
                "verdict": j.get("verdict"), "speedup_eager": V.num(j.get("speedup_eager")),
                "rule": j.get("rule")} for j in entries]}


def compare_reports(reports: Sequence[dict[str, Any]],
                    paths: Sequence[str] = ()) -> dict[str, Any]:
    """The comparison of already-read reports (pure: what `--json` prints)."""
    _one_submission(reports, paths)
    labels = _labels(reports)
    timed = [V.no_speed_reason(r) is None for r in reports]
    by_run = [{str(j.get("task")): j for j in V.jobs(r)} for r in reports]
    order: dict[str, str] = {}
    for r in reports:
        for j in V.jobs(r):
            if j.get("verdict") != "missing":  # a task no run submitted is not a row
                order.setdefault(str(j.get("task")), str(j.get("category") or ""))
    rows = [_task_row(task, cat, [runs.get(task) for runs in by_run], timed)
            for task, cat in sorted(order.items(), key=lambda tc: (tc[1], tc[0]))]
    hws = [r["p_hw"] for r in rows if r["p_hw"] is not None]
    return {
        "p_hw_threshold": P_HW_SPEEDUP,
        "runs": [{"label": label, "path": paths[i] if i < len(paths) else None,
                  "device_name": V.env(r).get("device_name"),
                  "submission": V.obj(r.get("submission")).get("name"),
                  "timed": timed[i], "untimed_reason": V.no_speed_reason(r),
                  "correct_rate": V.rates(r).get("correct_rate")}
                 for i, (label, r) in enumerate(zip(labels, reports))],
        "tasks": rows,
        "summary": {"tasks": len(rows), "timed_runs": sum(timed),
                    "mean_p_hw": statistics.fmean(hws) if hws else None,
                    "portable": sum(1 for h in hws if h == 1.0)},
        "warnings": [],
    }


def submission_identity(report: dict[str, Any]) -> tuple[str, ...]:
    """What makes two reports runs of one submission: the digest of its files where the
    report has one (schema 3), else its name, generator, model and manifest's task list."""
    sub = V.obj(report.get("submission"))
    if isinstance(sub.get("digest"), str) and sub["digest"]:
        return ("digest", sub["digest"])
    tasks = V.obj(report.get("manifest")).get("tasks")
    return ("manifest", str(sub.get("name")), str(sub.get("generator")), str(sub.get("model")),
            ",".join(sorted(str(t) for t in tasks)) if isinstance(tasks, list) else "?")


def _one_submission(reports: Sequence[dict[str, Any]], paths: Sequence[str]) -> None:
    first = submission_identity(reports[0]) if reports else None
    for i, report in enumerate(reports[1:], start=1):
        if submission_identity(report) != first:
            names = [str(V.obj(r.get("submission")).get("name")) for r in (reports[0], report)]
            where = [paths[k] if k < len(paths) else f"run {k + 1}" for k in (0, i)]
            raise BadInput(f"{where[1]} is a run of another submission than {where[0]} "
                           f"({names[1]!r} vs {names[0]!r}, or the same name with other "
                           "kernels): `kgb compare` compares one submission on several devices")


def compare_paths(paths: Sequence[Path]) -> dict[str, Any]:
    """Read each report.json (or run folder) and compare them; bad input raises BadInput."""
    return compare_reports([read_report(p) for p in paths], [str(p) for p in paths])


def to_json(comparison: dict[str, Any]) -> str:
    return json.dumps(comparison, indent=1)


def print_comparison(comparison: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from kgb.report.plain import console, safe
    from kgb.report.terminal import STYLE

    out = console(min_width=120)
    table = Table(title="kgb compare — one submission on several devices")
    table.add_column("task", no_wrap=True)
    for run in comparison["runs"]:
        table.add_column(safe(run["label"], 40) + ("" if run["timed"] else " (untimed)"),
                         no_wrap=True)
    table.add_column("P_hw", justify="right", no_wrap=True)
    table.add_column("composite", justify="right", no_wrap=True, min_width=9)
    for row in comparison["tasks"]:
        cells: list[Text | str] = [Text(safe(row["task"], 80))]
        for entry in row["runs"]:
            if entry is None:
                cells.append(Text("—", style="dim"))
                continue
            verdict = str(entry["verdict"])
            cell = Text(safe(verdict, 20), style=STYLE.get(verdict, ""))
            if entry["speedup_eager"] is not None:
                cell.append(f" {entry['speedup_eager']:.2f}×")
            cells.append(cell)
        cells += [V.fmt(row["p_hw"], ".2f"), V.fmt(row["composite"], ".2f")]
        table.add_row(*cells)
    out.print(table)
    s = comparison["summary"]
    out.print(Text(f"P_hw: share of timed runs where the kernel is correct and ≥ "
                   f"{comparison['p_hw_threshold']:g}× PyTorch eager; mean over tasks "
                   f"{V.fmt(s['mean_p_hw'], '.2f')}, {s['portable']} task(s) fast everywhere "
                   f"({s['timed_runs']} timed run(s))."))
    for run in comparison["runs"]:
        if not run["timed"]:
            out.print(Text(f"{safe(run['label'], 60)}: left out of P_hw and composite — "
                           f"{safe(run['untimed_reason'], 300)}", style="dim"))
    for warning in comparison["warnings"]:
        out.print(Text(f"warning: {safe(warning, 400)}", style="yellow"))
