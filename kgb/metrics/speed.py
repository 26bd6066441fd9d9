"""Speed metrics: speedup, geometric mean, fast_p, shape robustness."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

FAST_P = (0.0, 0.5, 0.8, 1.0, 1.5, 2.0)


def speedup(baseline_ms: float | None, kernel_ms: float | None) -> float | None:
    """Baseline time over kernel time; None when either is missing or not positive."""
    if baseline_ms is None or kernel_ms is None or baseline_ms <= 0 or kernel_ms <= 0:
        return None
    return baseline_ms / kernel_ms


def geomean(values: Iterable[float]) -> float | None:
    vals = [v for v in values if v is not None and v > 0]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def fast_p(speedups: Sequence[float | None], correct: Sequence[bool], p: float) -> float | None:
    """KernelBench's fast_p: the share of all tasks whose kernel is correct and more than p
    times faster than the baseline (p = 0: correct at all). None without tasks."""
    if not correct:
        return None
    hits = sum(1 for s, ok in zip(speedups, correct) if ok and (
        p == 0.0 or (s is not None and s > p)))
    return hits / len(correct)


def shape_cv(speedups: Sequence[float]) -> float | None:
    """Coefficient of variation of a task's speedups over its shapes (0: the same everywhere)."""
    vals = [s for s in speedups if s is not None]
    if len(vals) < 2:
        return 0.0 if vals else None
    mean = statistics.fmean(vals)
    return statistics.pstdev(vals) / mean if mean > 0 else None
