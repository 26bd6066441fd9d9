"""The report's charts as inline SVG text, drawn by matplotlib (imported here only, lazily: a
verify that never renders HTML never pays for it). No pyplot: Figure objects render straight to
SVG with no GUI backend and no global state. Each function returns (svg, caption) or None when
there is nothing honest to draw; the caption says what was left out and why."""

from __future__ import annotations

import io
import re
import statistics
from typing import Any

from kgb.metrics.composite import case_speedups
from kgb.metrics.speed import shape_cv
from kgb.report import view as V
from kgb.report.plain import safe

Chart = tuple[str, str]
ACCENT, GOOD, BAD, MUTED = "#3b6ea5", "#2e7d32", "#c62828", "#888888"
MAX_BARS = 25


def label(value: Any, limit: int = 40) -> str:
    """Untrusted text for a chart label: printable, short, no mathtext (`$` would be parsed)."""
    return safe(value, limit).replace("$", r"\$")


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    fig.set_layout_engine("constrained")
    return fig


def _svg(fig) -> str:
    import matplotlib

    buffer = io.StringIO()
    # Text stays text (smaller, selectable, escaped by matplotlib's SVG writer); a fixed salt
    # and no date make the same report give the same bytes.
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "kgb"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]  # no XML prolog or DOCTYPE inside HTML
    return re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)


def _plain_log_ticks(axis) -> None:
    """Log-scale ticks as 0.5, 1, 2 (not 5×10⁻¹): readers compare speedups, not exponents."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(FuncFormatter(lambda v, _: ""))


def speedup_histogram(report: dict[str, Any]) -> Chart | None:
    values = [s for _, s in V.speedups(report)]
    if not values:
        return None
    fig = _figure(7.0, 3.0)
    ax = fig.add_subplot()
    low, high = min(values + [0.5]), max(values + [2.0])
    edges = [low * (high / low) ** (i / 24) for i in range(25)]
    ax.hist(values, bins=edges, color=ACCENT, edgecolor="white")
    ax.set_xscale("log")
    _plain_log_ticks(ax.xaxis)
    from matplotlib.ticker import MaxNLocator

    # Powers of two: a narrow range still gets labels (0.5, 1, 2), never a lone "1".
    ax.set_xticks([2.0**k for k in range(-10, 11) if low / 1.5 <= 2.0**k <= high * 1.5])
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.axvline(1.0, color=BAD, linestyle="--", linewidth=1, label="1× (as fast as eager)")
    geo = V.num(V.rates(report).get("geomean_speedup_eager"))
    if geo is not None:
        ax.axvline(geo, color=GOOD, linewidth=1.5, label=f"geomean {geo:.2f}×")
    ax.set_xlabel("speedup over PyTorch eager (log scale)")
    ax.set_ylabel("kernels")
    fig.legend(loc="outside upper center", ncols=2, frameon=False, fontsize=8)
    caption = (f"Speedup over PyTorch eager of the {len(values)} correct kernel(s) with a "
               "measured speedup (per task: geometric mean over its timed shapes).")
    return _svg(fig), caption


def category_bars(report: dict[str, Any], timed: bool) -> Chart | None:
    cats = V.by_category(report)
    if len(cats) < 2:  # one bar says what the table beside it says (and costs matplotlib)
        return None
    names = list(cats)[::-1]  # first category on top
    fig = _figure(7.0, 0.6 + 0.28 * len(names))
    axes = fig.subplots(1, 2 if timed else 1, sharey=True, squeeze=False)[0]
    correct = [V.num(cats[n].get("correct_rate")) or 0.0 for n in names]
    y = range(len(names))
    axes[0].barh(y, correct, color=GOOD)
    axes[0].set_yticks(list(y), [label(n) for n in names], fontsize=8)
    axes[0].set_xlim(0, 1)
    axes[0].set_xlabel("correct rate")
    caption = ("Per category: the share of its submitted kernels that passed (categories "
               "without a kernel are left out)")
    if timed:
        geo = [V.num(cats[n].get("geomean_speedup_eager")) for n in names]
        axes[1].barh(y, [g or 0.0 for g in geo], color=ACCENT)
        axes[1].axvline(1.0, color=BAD, linestyle="--", linewidth=1)
        axes[1].set_xlabel("geomean speedup over eager")
        caption += "; and the geometric mean speedup of its correct kernels (none: no bar)"
    return _svg(fig), caption + "."


def _points(report: dict[str, Any]) -> tuple[list[dict[str, Any]], int, int]:
    """Largest-shape timing figures usable on a roofline, jobs with such figures, jobs left out
    (correct kernels whose timings lack FLOP/byte counts or achieved throughput)."""
    points, plotted, left_out = [], 0, 0
    for job, _ in V.speedups(report):
        rows = []
        for t in job.get("timings") or ():
            if not isinstance(t, dict):
                continue
            flops, nbytes, tflops = V.num(t.get("flops")), V.num(t.get("bytes")), \
                V.num(t.get("tflops"))
            if flops and nbytes and tflops and flops > 0 and nbytes > 0:
                rows.append(dict(t, intensity=flops / nbytes, achieved=tflops))
        if rows:
            plotted += 1
            points.append(max(rows, key=lambda t: V.num(t.get("bytes")) or 0.0))
        else:
            left_out += 1
    return points, plotted, left_out


def _peaks(points: list[dict[str, Any]]) -> tuple[float | None, dict[str, float]]:
    """The peaks behind the report's fractions: achieved / fraction (each case carries both)."""
    bw: list[float] = []
    compute: dict[str, list[float]] = {}
    for p in points:
        gbps, bw_frac = V.num(p.get("gbps")), V.num(p.get("bandwidth_fraction"))
        tflops, fl_frac = V.num(p.get("tflops")), V.num(p.get("flops_fraction"))
        if gbps and bw_frac:
            bw.append(gbps / bw_frac)
        if tflops and fl_frac:
            compute.setdefault(str(p.get("dtype")), []).append(tflops / fl_frac)
    return (statistics.median(bw) if bw else None,
            {k: statistics.median(v) for k, v in compute.items()})


def roofline(report: dict[str, Any]) -> Chart | None:
    points, plotted, left_out = _points(report)
    if not points:
        return None
    bw_gbps, peak_tflops = _peaks(points)
    fig = _figure(7.0, 4.0)
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")
    _plain_log_ticks(ax.xaxis)
    _plain_log_ticks(ax.yaxis)
    xs = [p["intensity"] for p in points]
    ys = [p["achieved"] for p in points]
    dtypes = sorted({str(p.get("dtype")) for p in points})
    colors = ["#3b6ea5", "#e07b39", "#2e7d32", "#8e44ad", "#c62828", "#555555"]
    x_lo, x_hi = min(xs) / 4, max(xs) * 4
    for i, dtype in enumerate(dtypes):
        color = colors[i % len(colors)]
        sel = [k for k, p in enumerate(points) if str(p.get("dtype")) == dtype]
        ax.scatter([xs[k] for k in sel], [ys[k] for k in sel], s=18, color=color,
                   label=f"{label(dtype)} kernels", zorder=3)
        peak = peak_tflops.get(dtype)
        if bw_gbps and peak:
            grid = [x_lo * (x_hi / x_lo) ** (j / 60) for j in range(61)]
            ax.plot(grid, [min(peak, x * bw_gbps / 1e3) for x in grid], color=color,
                    linewidth=1, linestyle="--", label=f"{label(dtype)} roof ({peak:g} TFLOP/s)")
    ax.set_xlabel("arithmetic intensity (FLOP per byte of DRAM traffic)")
    ax.set_ylabel("achieved TFLOP/s")
    ax.legend(frameon=False, fontsize=7, loc="lower right")
    roof = (f"roofs: {bw_gbps:g} GB/s and the dtype's peak TFLOP/s, the peaks kgb used for "
            "the fractions of peak" if bw_gbps and peak_tflops else
            "no peaks known for this device, so no roof is drawn")
    caption = (f"Achieved throughput of {plotted} correct kernel(s) on their largest timed "
               f"case against the device's roofline ({roof}).")
    if left_out:
        caption += (f" {left_out} correct kernel(s) left out: their timings carry no FLOP and "
                    "byte counts (the task's [cost]) or no achieved throughput.")
    return _svg(fig), caption


def shape_robustness(report: dict[str, Any]) -> Chart | None:
    rows = []
    for job, _ in V.speedups(report):
        per_case = case_speedups(job)
        cv = shape_cv(per_case) if len(per_case) >= 2 else None
        if cv is not None:
            rows.append((str(job.get("task")), cv, len(per_case)))
    if not rows:
        return None
    rows.sort(key=lambda r: r[1], reverse=True)
    shown = rows[:MAX_BARS][::-1]
    fig = _figure(7.0, 0.6 + 0.25 * len(shown))
    ax = fig.add_subplot()
    ax.barh(range(len(shown)), [r[1] for r in shown], color=ACCENT)
    ax.set_yticks(list(range(len(shown))), [label(r[0], 48) for r in shown], fontsize=7)
    ax.set_xlabel("CV of the speedup over the task's timed cases (0: as fast on every shape)")
    caption = (f"Shape robustness: the coefficient of variation of each task's per-case speedup "
               f"over eager ({len(rows)} task(s) with at least two timed cases"
               + (f"; the {MAX_BARS} least even shown" if len(rows) > MAX_BARS else "") + ").")
    return _svg(fig), caption
