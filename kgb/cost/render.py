"""The cost section as text: JSON (the section itself), CSV (one row per task) and rich tables.
Renderers only format; every number comes from the section (figures.py computed it)."""

from __future__ import annotations

import csv
import io
import json

from rich import box
from rich.console import Group as RichGroup
from rich.table import Table
from rich.text import Text

from kgb.report.plain import safe

CSV_COLUMNS = ("task", "in_manifest", "verdict", "speedup", "fast_1", "calls", "attempts",
               "input", "cached", "cache_write", "output", "reasoning", "total_tokens",
               "cost_usd", "cost_status", "unpriced_tokens", "call_seconds", "span_seconds",
               "timed_calls")


def to_json(section: dict) -> str:
    return json.dumps(section, indent=2)


def to_csv(section: dict) -> str:
    """One row per task: every task of the log, plus manifest kernels that logged nothing.
    Empty cells mean unknown (no verdicts given, unpriced), never zero."""
    kernels = {r["task"]: r for r in section["by_kernel"]["rows"]}
    rows = {r["task"]: r for r in section["by_task"]}
    for task, k in kernels.items():
        rows.setdefault(task, {**k, "in_manifest": True})
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(CSV_COLUMNS)
    for task in sorted(rows):
        r, k = rows[task], kernels.get(task, {})
        tok, cost, time = r["tokens"], r["cost"], r["time"]
        out.writerow([_cell(v) for v in (
            task, r.get("in_manifest"), k.get("verdict"), k.get("speedup"), k.get("fast_1"),
            r["calls"], r["attempts"], tok["input"], tok["cached"], tok["cache_write"],
            tok["output"], tok["reasoning"], tok["total"], cost["usd"], cost["status"],
            cost["unpriced_tokens"], time["call_seconds"], time["span_seconds"],
            time["timed_calls"])])
    return buf.getvalue()


def _cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def money(cost: dict, short: bool = False) -> str:
    """$ with the status spelled out: a partial sum is a lower bound, unpriced is not $0."""
    usd, status = cost.get("usd"), cost.get("status")
    if status == "no_calls":
        return "no calls"
    if usd is None:
        return "unpriced"
    text = f"${usd:,.4f}" if usd < 100 else f"${usd:,.2f}"
    if status != "partial":
        return text
    return f"≥{text}" if short else f"≥ {text} (partial: some tokens unpriced)"


def _n(x: float | int | None) -> str:
    if x is None:
        return "—"
    return f"{x:,}" if isinstance(x, int) else f"{x:,.1f}"


def _tok(x: int | None) -> str:
    """Exact below 100k; above, 3 significant digits keep the tables within 80 columns."""
    if x is None:
        return "—"
    for size, unit in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if x >= 100_000 and x >= size:
            return f"{x / size:.3g}{unit}"
    return f"{x:,}"


def _token_table(title: str, key: str, rows: list[dict], extra: tuple[str, ...] = ()) -> Table:
    """Token columns that are empty in every row (no cache use, no reasoning reported) are
    left out, so the table fits 80 columns more often; JSON and CSV always have them all."""
    kinds = [("input", "input"), ("cached", "cached"), ("write", "cache_write"),
             ("output", "output"), ("reason", "reasoning")]
    kinds = [(h, k) for h, k in kinds
             if k in ("input", "output") or any(r["tokens"][k] for r in rows)]
    # Short headers keep 80 columns readable; docs/cost.md defines each column.
    cols = [key, *extra, "calls", *(h for h, _ in kinds), "total", "cost", "secs"]
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
              collapse_padding=True)
    name_width = min(max([len(str(r[key])) for r in rows] + [4]), 24)
    for col in cols:
        # Numbers never wrap (a split number misreads); names fold instead.
        t.add_column(col, justify="left" if col in (key, "verdict") else "right",
                     no_wrap=col not in (key, "verdict"), overflow="fold",
                     min_width=name_width if col == key else None)
    for r in rows:
        tok = r["tokens"]
        t.add_row(safe(r[key]), *(safe(_extra(r, e)) for e in extra), _n(r["calls"]),
                  *(_tok(tok[k]) for _, k in kinds), _tok(tok["total"]),
                  money(r["cost"], short=True), _n(r["time"]["call_seconds"]))
    return t


def _extra(row: dict, col: str) -> str:
    v = row.get(col)
    if col == "speedup" and isinstance(v, float):
        return f"{v:.2f}×"
    return "—" if v is None else str(v)


# cost/figures.py's reason when a report has no speedup at all: "yet" reads wrong for a run that
# never measures any (the CPU interpreter, --timing off, --baselines none).
_NO_SPEEDUPS = "the report has no speedups yet"
NO_SPEEDUPS_WORDS = ("the report has no speedups: CPU (interpreter) runs, --timing off and "
                     "--baselines none measure none; a timed GPU run gives each passed kernel one")


def _figure(name: str, fig: dict) -> tuple[str, str]:
    if not fig.get("available"):
        reason = fig.get("reason")
        return name, f"unavailable: {NO_SPEEDUPS_WORDS if reason == _NO_SPEEDUPS else reason}"
    if "value" in fig:  # attempts per success
        text = f"{fig['value']:.2f} ({fig['attempts']} attempts / {fig['successes']} passed)"
        partial = " — partial: some calls have no attempt id" if fig["partial"] else ""
        return name, text + partial
    cost = money({"usd": fig["cost_usd"], "status": fig["cost_status"]})
    plural = "s" if fig["kernels"] != 1 else ""
    return name, (f"{cost}, {fig['tokens']['total']:,.0f} tokens "
                  f"(all spend / {fig['kernels']} kernel{plural})")


def summary_rows(section: dict) -> list[tuple[str, str]]:
    """The section's summary as (figure, text) rows: the terminal's "Token cost" table and the
    cost part of report.md and report.html (plain text; callers escape it)."""
    tot, lines = section["totals"], section["lines"]
    rows = [("log", f"{section['inputs']['tokens']}: {lines['read']:,} lines, "
                    f"{lines['used']:,} used, {lines['excluded']:,} excluded"),
            ("pricing", str(section["pricing"]["source"] or "none given (costs unpriced)")),
            ("tokens", f"{tot['tokens']['total']:,} total "
                       f"({tot['tokens']['input']:,} input, {tot['tokens']['cached']:,} cached, "
                       f"{tot['tokens']['cache_write']:,} cache write, "
                       f"{tot['tokens']['output']:,} output)"),
            ("cost", money(tot["cost"])),
            ("wall time", f"{_n(tot['time']['call_seconds'])} s in calls, "
                          f"{_n(tot['time']['span_seconds'])} s first start to last end "
                          f"({tot['time']['timed_calls']:,} timed calls)")]
    for label, key in (("per correct kernel", "per_correct_kernel"),
                       ("per fast_1 kernel", "per_fast_1_kernel"),
                       ("attempts per success", "attempts_per_success")):
        rows.append(_figure(label, section[key]))
    return rows


def terminal(section: dict) -> RichGroup:
    """Summary, figures, per-model, per-kernel (or per-task) tables and findings."""
    summary = Table(title="Token cost", title_justify="left", show_header=False)
    summary.add_column(style="bold")
    summary.add_column()
    for label, text in summary_rows(section):
        summary.add_row(label, safe(text))

    parts: list = [summary, _token_table("Per model", "model", section["by_model"])]
    if section["by_kernel"]["rows"]:
        extra = ("verdict", "speedup") if section["inputs"]["verdicts"] else ()
        parts.append(_token_table("Per kernel", "task", section["by_kernel"]["rows"], extra))
    outside = [r for r in section["by_task"] if r["in_manifest"] is not True]
    if outside:
        title = "Per task" if section["by_kernel"]["rows"] == [] else "Tasks without a kernel"
        parts.append(_token_table(title, "task", outside))
    parts.append(_findings(section["findings"]))
    return RichGroup(*parts)


_STYLE = {"error": "red", "warning": "yellow", "info": "cyan"}


def _findings(findings: list[dict]) -> Table | Text:
    if not findings:
        return Text("No findings.", style="green")
    t = Table(title="Findings", title_justify="left")
    for col in ("code", "severity", "message", "lines"):
        t.add_column(col)
    for f in findings:
        shown = ", ".join(map(str, f["lines"][:8]))
        if f["count"] > min(len(f["lines"]), 8):
            shown += f" … ({f['count']:,} in all)" if shown else f"({f['count']:,})"
        t.add_row(f"{f['code']} {f['name']}",
                  Text(f["severity"], style=_STYLE.get(f["severity"], "")), safe(f["message"]),
                  shown or "—")
    return t
