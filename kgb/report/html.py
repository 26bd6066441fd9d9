"""report.html: the run as ONE self-contained file — inline CSS, charts as inline SVG, no
script, nothing fetched from anywhere — so it can be mailed, archived with a paper, or opened
offline years later and show the same thing.

Everything that is not kgb's own literal text goes through `esc` (html.escape after the
terminal-safety pass): messages come from hostile kernels, and the report file itself may have
been written by anyone."""

from __future__ import annotations

import html
import re
from typing import Any

from kgb.report import view as V
from kgb.report.plain import safe

VERDICT_CLASS = {"passed": "ok", "rejected": "bad", "incorrect": "bad", "compile_error": "warn",
                 "crashed": "warn", "timeout": "warn", "unverified": "warn", "missing": "dim"}

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#222;
background:#fafafa}
main{max-width:1180px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #ddd;
padding-bottom:4px}
.env{color:#555;font-size:12.5px;margin-bottom:12px}
.notice{border-left:4px solid #e0a800;background:#fff8e1;padding:10px 14px;margin:10px 0}
.notice.cpu{border-color:#3b6ea5;background:#eef4fb}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:96px}
.card b{display:block;font-size:20px}.card span{color:#666;font-size:12px}
table{border-collapse:collapse;background:#fff;margin:8px 0 4px;font-size:13px}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.msg{max-width:520px;word-break:break-word;font-size:12px}
.loc{font-family:ui-monospace,monospace;font-size:12px;word-break:break-all}
.v{font-weight:600;white-space:nowrap}.ok{color:#2e7d32}.bad{color:#c62828}.warn{color:#a0522d}
.dim{color:#888}
figure{background:#fff;border:1px solid #ddd;border-radius:6px;margin:12px 0;padding:10px}
figure svg{max-width:100%;height:auto}
figcaption{color:#444;font-size:12.5px;margin-top:6px}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:12px}
@media(max-width:900px){.grid{grid-template-columns:1fr}}
details{margin:8px 0}summary{cursor:pointer;color:#3b6ea5}
footer{color:#777;font-size:12px;margin-top:32px}
"""


def esc(value: Any, limit: int = 2000) -> str:
    """Untrusted text as inert HTML (attribute-safe too)."""
    return html.escape(safe(value, limit), quote=True)


def prose(value: Any, limit: int = 2000) -> str:
    """Escaped text whose `code spans` are shown as code (after escaping: nothing can open)."""
    return re.sub(r"`([^`<]+)`", r"<code>\1</code>", esc(value, limit))


def _table(header: list[str], rows: list[list[str]], numeric: tuple[int, ...] = ()) -> str:
    """`rows` hold already-escaped HTML (a cell starting with `<td` is a whole cell, with its
    own class: escaped text never starts so); `numeric`: columns aligned right."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(
        f'<td class="n">{c}</td>' if i in numeric else
        (c if c.startswith("<td") else f"<td>{c}</td>") for i, c in enumerate(row)) + "</tr>"
        for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _verdict(value: Any) -> str:
    css = VERDICT_CLASS.get(str(value), "warn")
    return f'<span class="v {css}">{esc(value, 40)}</span>'


def _cards(report: dict[str, Any], timed: bool) -> str:
    r = V.rates(report)
    fast = V.obj(r.get("fast_p"))
    items = [(f"{r.get('correct', '—')}/{r.get('tasks', '—')}", "kernels correct"),
             (V.pct(r.get("correct_rate")), "correct rate"),
             (V.pct(r.get("compile_rate")), "compile rate"),
             (V.pct(r.get("correct_given_compiled")), "Correct/Compile"),
             (f"{r.get('tasks', '—')}/{r.get('suite_tasks', '—')}", "suite tasks submitted")]
    if timed:
        items += [(V.pct(fast.get("fast_1")), "fast_1"),
                  (V.times(r.get("geomean_speedup_eager")), "geomean speedup"),
                  (V.fmt(V.summary(report).get("composite"), ".3f"), "composite")]
    return '<div class="cards">' + "".join(
        f"<div class=\"card\"><b>{esc(v)}</b><span>{label}</span></div>" for v, label in items
    ) + "</div>"


def _summary(report: dict[str, Any], timed: bool) -> str:
    counts = V.counts(report)
    verdicts = " · ".join(f"{_verdict(k)} {v}" for k, v in counts.items() if v)
    r = V.rates(report)
    fast = V.obj(r.get("fast_p"))
    rows = [["kernels rated (submitted)", str(r.get("tasks", "—"))],
            ["suite coverage", V.pct(r.get("coverage"))],
            ["compile rate", V.pct(r.get("compile_rate"))],
            ["correct rate", V.pct(r.get("correct_rate"))],
            ["Correct/Compile", V.pct(r.get("correct_given_compiled"))]]
    if timed:  # untimed: fast_0 would only repeat the correct rate as if it were a speed figure
        rows += [[name, V.pct(fast.get(name))] for name in V.FAST_P_NAMES]
        rows += [["geomean speedup over eager", V.times(r.get("geomean_speedup_eager"))],
                 ["geomean speedup over torch.compile", V.compile_speedup(report)],
                 ["composite (mean over kernels)",
                  V.fmt(V.summary(report).get("composite"), ".3f")]]
    else:
        rows.append(["fast_p, speedups, composite", "not measured on this run"])
    coverage = V.coverage_line(report)
    return (f"<h2>Summary</h2>{_cards(report, timed)}<p>Verdicts: {verdicts or 'none'}</p>"
            + (f"<p>{esc(coverage)}</p>" if coverage else "")
            + (f"<p>{esc(V.unrun_line(report), 1200)}</p>" if V.unrun_line(report) else "")
            + _table(["metric", "value"], [[esc(a), esc(b)] for a, b in rows], numeric=(1,)))


def _categories(report: dict[str, Any], timed: bool) -> str:
    cats = V.by_category(report)
    if not cats:
        return ""
    header = ["category", "kernels", "compiled", "correct", "correct rate"]
    header += ["fast_1", "geomean speedup"] if timed else []
    rows = []
    for name, r in cats.items():
        row = [esc(name), esc(r.get("tasks")), esc(r.get("compiled")), esc(r.get("correct")),
               V.pct(r.get("correct_rate"))]
        if timed:
            row += [V.pct(V.obj(r.get("fast_p")).get("fast_1")),
                    V.fmt(r.get("geomean_speedup_eager"))]
        rows.append(row)
    return "<h2>By category</h2>" + _table(header, rows, numeric=tuple(range(1, len(header))))


def _figure(chart: tuple[str, str] | None, missing: str) -> str:
    if chart is None:
        return f'<figure><p class="dim">{esc(missing)}</p></figure>'
    svg, caption = chart
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


def _charts(report: dict[str, Any], reason: str | None) -> str:
    from kgb.report import plots

    parts = ["<h2>Charts</h2>"]
    if reason:
        parts.append('<div class="notice cpu"><b>No speed charts</b> (speedup distribution, '
                     "roofline, shape robustness): this run has no speed figures (see the "
                     "Timings note above).</div>")
        parts.append(_figure(plots.category_bars(report, timed=False),
                             "No category chart: the submitted kernels are of one category or "
                             "none (see the table by category)."))
        return "".join(parts)
    parts.append('<div class="grid">')
    parts.append(_figure(plots.speedup_histogram(report), "No speedups to plot."))
    parts.append(_figure(plots.category_bars(report, timed=True),
                         "No category chart: the submitted kernels are of one category or "
                             "none (see the table by category)."))
    parts.append(_figure(plots.roofline(report),
                         "No roofline: no correct kernel's timings carry FLOP and byte counts "
                         "with achieved throughput (tflops, gbps) in this report."))
    parts.append(_figure(plots.shape_robustness(report),
                         "No shape-robustness chart: it needs per-case speedups (each timed "
                         "case's eager_ms and median_ms) for at least two cases of a task; "
                         "this report has none."))
    parts.append("</div>")
    return "".join(parts)


def _job_rows(report: dict[str, Any], timed: bool) -> tuple[list[list[str]], list[str]]:
    rows, missing = [], []
    for job in V.jobs(report):
        if job.get("verdict") == "missing":
            missing.append(str(job.get("task")))
            continue
        code = V.code(job)
        message = esc(job.get("message") or "", 600)
        loc = esc(V.where(job), 200)
        row = [esc(job.get("task")), esc(job.get("category")), _verdict(job.get("verdict")),
               esc(job.get("rule") or ""), esc(V.cases_cell(job)),
               V.error(job.get("max_rel_l2_err"))]
        if timed:
            row += [V.fmt(job.get("speedup_eager")), V.fmt(job.get("speedup_compile")),
                    V.fmt(job.get("shape_cv")), V.fmt(job.get("composite"), ".2f")]
        at = f'<span class="loc">{loc}</span><br>' if loc else ""
        row += [V.fmt(code.get("mi"), ".0f"), esc(code.get("cc_max", "—")),
                f'<td class="msg">{at}{message}</td>']
        rows.append(row)
    return rows, missing


def _jobs(report: dict[str, Any], timed: bool) -> str:
    header = ["task", "category", "verdict", "rule", "cases", "max rel L2"]
    header += ["speedup", "vs compile", "shape CV", "composite"] if timed else []
    header += ["MI", "CC max", "where and why"]
    rows, missing = _job_rows(report, timed)
    numeric = tuple(range(5, len(header) - 1))
    out = ["<h2>Jobs</h2>",
           "<p>Every submitted kernel: its verdict, the anti-cheat rule that decided it, cases "
           "passed of planned, the largest relative L2 error, "
           + ("speedups over PyTorch eager and torch.compile, shape CV, composite, " if timed
              else "") + "radon's maintainability index (MI, 0–100) and the largest cyclomatic "
           "complexity (CC) in the file.</p>",
           _table(header, rows, numeric=numeric) if rows else "<p>No kernel was submitted.</p>"]
    if missing:
        out.append(f"<details><summary>{len(missing)} suite task(s) have no kernel in this "
                   "submission (verdict missing; not rated: the coverage counts them)"
                   f"</summary><p>{esc(', '.join(missing), 20000)}</p></details>")
    return "".join(out)


def _offenders(report: dict[str, Any], timed: bool) -> str:
    failed = V.failures(report)
    out = ["<h2>Worst offenders</h2>"]
    if failed:
        shown = failed[: V.WORST]
        out.append(f"<p>{len(failed)} kernel(s) did not pass"
                   + (f"; the first {V.WORST} by verdict:" if len(failed) > V.WORST else ":")
                   + "</p>")
        out.append(_table(["task", "verdict", "rule", "location", "message"],
                          [[esc(j.get("task")), _verdict(j.get("verdict")),
                            esc(j.get("rule") or ""), f'<td class="loc">{esc(V.where(j))}</td>',
                            f'<td class="msg">{esc(j.get("message") or "", 600)}</td>']
                           for j in shown]))
    else:
        out.append("<p>Every submitted kernel passed.</p>")
    slow = V.slowest(report) if timed else []
    if slow:
        out.append("<p>Slowest correct kernels (speedup over PyTorch eager):</p>")
        out.append(_table(["task", "speedup", "vs compile", "shape CV", "time ms"],
                          [[esc(j.get("task")), V.fmt(s), V.fmt(j.get("speedup_compile")),
                            V.fmt(j.get("shape_cv")), V.fmt(j.get("time_ms"), ".4f")]
                           for j, s in slow], numeric=(1, 2, 3, 4)))
    unchecked = V.speed_unchecked(report) if timed else []
    if unchecked:
        out.append(f"<p>{esc(V.UNCHECKED_TITLE)}</p>")
        out.append(_table(["check not run", "kernels"],
                          [[f'<td class="msg">{esc(reason, 400)}</td>',
                            esc(V.task_list(tasks, 8), 600)]
                           for reason, tasks in unchecked]))
    out += [f"<p>{esc(line, 600)}</p>" for line in (V.baseline_cache_lines(report) if timed
                                                    else [])]
    return "".join(out)


def _cost(report: dict[str, Any]) -> str:
    rows = V.cost_rows(report)
    if not rows:
        return ""
    return ("<h2>Token cost</h2><p>From the submission's tokens.jsonl and the --pricing table "
            "(docs/cost.md; per-model and per-kernel tables: <code>kgb cost</code>).</p>"
            + _table(["figure", "value"], [[esc(a), esc(b, 600)] for a, b in rows]))


def render_html(report: dict[str, Any]) -> str:
    """report.html for a report.json dict: one file, no external resource, no script."""
    reason = V.no_speed_reason(report)
    timed = reason is None
    notices = "".join(f'<div class="notice">{prose(w, 600)}</div>' for w in V.warnings(report))
    if reason:
        notices = f'<div class="notice cpu"><b>Timings:</b> {prose(reason)}</div>' + notices
    body = (f"<h1>{esc(V.title(report), 200)}</h1>"
            f'<div class="env">{esc(V.environment_line(report), 800)}</div>{notices}'
            + _summary(report, timed) + _categories(report, timed) + _charts(report, reason)
            + _offenders(report, timed) + _jobs(report, timed) + _cost(report)
            + "<footer>Generated by kgb from report.json (schema "
            f"{esc(report.get('schema_version'))}); per-case figures are in report.json. "
            "Re-render: <code>kgb report OUT --format html</code>.</footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            # No script may run and nothing may load, even if an escape were ever missed.
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; img-src data:\">"
            f"<title>{esc(V.title(report), 200)}</title><style>{CSS}</style></head>"
            f"<body><main>{body}</main></body></html>\n")
