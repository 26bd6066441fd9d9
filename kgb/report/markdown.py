"""report.md: the run for a reader (a paper's appendix, a pull request): summary rates, the
per-category table, the worst offenders, the environment. Pure function of report.json.

Messages come from kernels: every cell is escaped so that no text can open a link, an image,
HTML or a new table cell."""

from __future__ import annotations

import html
import re
from typing import Any

from kgb.report import view as V
from kgb.report.plain import safe

_MD_SPECIAL = re.compile(r"([\\`*\[\]|])")  # code, emphasis, links and images, table cells
_AUTOLINK = re.compile(r"(?i)\b(https?|ftp)(:)|\b(www)(\.)")  # GFM links bare URLs


def cell(value: Any, limit: int = 300) -> str:
    """Untrusted text as one inert Markdown table cell: no HTML, no link, no new cell."""
    text = _MD_SPECIAL.sub(r"\\\1", html.escape(safe(value, limit), quote=False))
    return _AUTOLINK.sub(lambda m: f"{m.group(1) or m.group(3)}\\{m.group(2) or m.group(4)}",
                         text)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def _rate(hits: Any, total: Any, rate: Any) -> str:
    return f"{hits}/{total} ({V.pct(rate)})" if V.num(rate) is not None else "—"


def _summary(report: dict[str, Any], timed: bool) -> list[str]:
    r = V.rates(report)
    counts = V.counts(report)
    order = [v for v in V.VERDICT_ORDER if counts.get(v)] + \
        [v for v in counts if v not in V.VERDICT_ORDER and counts[v]]
    lines = ["## Summary", "",
             "Verdicts: " + (", ".join(f"{cell(v)} {counts[v]}" for v in order) or "none"), ""]
    if V.coverage_line(report):
        lines += [str(V.coverage_line(report)), ""]
    if V.unrun_line(report):
        lines += [cell(V.unrun_line(report), 1200), ""]
    rows = [["kernels rated (submitted)", str(r.get("tasks", "—"))],
            ["suite coverage", _rate(r.get("tasks"), r.get("suite_tasks"), r.get("coverage"))],
            ["compile rate", _rate(r.get("compiled"), r.get("tasks"), r.get("compile_rate"))],
            ["correct rate", _rate(r.get("correct"), r.get("tasks"), r.get("correct_rate"))],
            ["Correct/Compile", V.pct(r.get("correct_given_compiled"))]]
    fast = V.obj(r.get("fast_p"))
    if timed:  # untimed: fast_0 would only repeat the correct rate as if it were a speed figure
        rows += [[name, V.pct(fast.get(name))] for name in V.FAST_P_NAMES]
        rows += [["geomean speedup over eager (correct kernels)",
                  V.times(r.get("geomean_speedup_eager"))],
                 ["geomean speedup over torch.compile", V.compile_speedup(report)],
                 ["composite (mean over kernels)", V.fmt(V.summary(report).get("composite"),
                                                         ".3f")]]
    else:
        rows.append(["fast_p, speedups, composite", "not measured (see above)"])
    return lines + _table(["metric", "value"], rows)


def _categories(report: dict[str, Any], timed: bool) -> list[str]:
    cats = V.by_category(report)
    if not cats:
        return []
    header = ["category", "kernels", "compiled", "correct", "correct rate"]
    if timed:
        header += ["fast_1", "geomean speedup"]
    rows = []
    for name, r in cats.items():
        row = [cell(name), str(r.get("tasks", "—")), str(r.get("compiled", "—")),
               str(r.get("correct", "—")), V.pct(r.get("correct_rate"))]
        if timed:
            fast = V.obj(r.get("fast_p"))
            row += [V.pct(fast.get("fast_1")), V.fmt(r.get("geomean_speedup_eager"), ".2f")]
        rows.append(row)
    return ["## By category", ""] + _table(header, rows)


def _offenders(report: dict[str, Any], timed: bool) -> list[str]:
    lines = ["## Worst offenders", ""]
    failed = V.failures(report)
    if failed:
        lines += [f"Kernels that did not pass ({len(failed)}; first {V.WORST} shown)"
                  if len(failed) > V.WORST else f"Kernels that did not pass ({len(failed)}):", ""]
        lines += _table(["task", "verdict", "rule", "location", "message"],
                        [[cell(j.get("task")), cell(j.get("verdict")), cell(j.get("rule") or ""),
                          cell(V.where(j), 120), cell(j.get("message") or "")]
                         for j in failed[: V.WORST]])
    else:
        lines += ["Every submitted kernel passed.", ""]
    if timed:
        slow = V.slowest(report)
        if slow:
            lines += ["Slowest correct kernels (speedup over PyTorch eager; below 1: slower):",
                      ""]
            lines += _table(["task", "speedup vs eager", "vs torch.compile", "shape CV",
                             "time ms"],
                            [[cell(j.get("task")), V.fmt(s, ".2f"),
                              V.fmt(j.get("speedup_compile"), ".2f"),
                              V.fmt(j.get("shape_cv"), ".2f"), V.fmt(j.get("time_ms"), ".4f")]
                             for j, s in slow])
        unchecked = V.speed_unchecked(report)
        if unchecked:
            lines += [V.UNCHECKED_TITLE, ""]
            lines += _table(["check not run", "kernels"],
                            [[cell(reason, 400), cell(V.task_list(tasks, 8), 600)]
                             for reason, tasks in unchecked])
        cache = V.baseline_cache_lines(report)
        if cache:
            for line in cache:
                lines += [cell(line, 600), ""]
    return lines


def _code(report: dict[str, Any]) -> list[str]:
    measured = [j for j in V.jobs(report) if V.num(V.code(j).get("mi")) is not None]
    if not measured:
        return []
    measured.sort(key=lambda j: V.num(V.code(j).get("mi")) or 0.0)
    rows = [[cell(j.get("task")), V.fmt(V.code(j).get("mi"), ".1f"),
             str(V.code(j).get("cc_max", "—")), V.fmt(V.code(j).get("cc_mean"), ".1f")]
            for j in measured[:5]]
    return ["## Maintainability", "",
            "radon's maintainability index (0–100, higher is easier to maintain) and cyclomatic "
            f"complexity of each kernel file; the {len(rows)} lowest of {len(measured)}:", ""] \
        + _table(["task", "MI", "CC max", "CC mean"], rows)


def _cost(report: dict[str, Any]) -> list[str]:
    rows = V.cost_rows(report)
    if not rows:
        return []
    return ["## Token cost", "", "From the submission's tokens.jsonl and the --pricing table "
            "(docs/cost.md; per-model and per-kernel tables: `kgb cost`).", ""] \
        + _table(["figure", "value"], [[cell(a), cell(b, 600)] for a, b in rows])


def render_markdown(report: dict[str, Any]) -> str:
    """report.md for a report.json dict."""
    reason = V.no_speed_reason(report)
    timed = reason is None
    lines = [f"# {cell(V.title(report), 200)}", "", cell(V.environment_line(report), 600), ""]
    if reason:
        lines += [f"> **Timings:** {reason}", ""]
    lines += [f"> **Note:** {cell(w, 600)}" for w in V.warnings(report)]
    if V.warnings(report):
        lines.append("")
    lines += _summary(report, timed) + _categories(report, timed) + _offenders(report, timed)
    lines += _code(report) + _cost(report)
    lines += ["Generated by `kgb report --format md` from report.json (schema "
              f"{cell(report.get('schema_version'))}); per-job details, cases and timings are "
              "in report.json.", ""]
    return "\n".join(lines)
