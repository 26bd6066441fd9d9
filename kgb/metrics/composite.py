"""Per-task robustness and the composite score (design.md, Report): pure functions of report job
entries, shared by report.json, the human reports and `kgb compare`.

    composite = Speedup_med × (1 − CV_shape) × C_op × P_hw

- Speedup_med: the median over the task's timed shapes of PyTorch-eager time / kernel time;
- CV_shape: the coefficient of variation of those speedups (0: as fast everywhere), the
  factor clamped to [0, 1] so a wildly uneven kernel scores 0, never below;
- C_op: the share of the task's planned cases whose outputs matched the reference;
- P_hw: the share of hardware runs where the kernel is correct and at least P_HW_SPEEDUP times
  as fast as eager (one run: 0 or 1).

A kernel that is not correct gets no speed credit (composite 0); a correct kernel that was
not timed (the CPU interpreter, --timing off) has no composite (None), never a made-up one.
docs/decisions.md, "Composite score", says why."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from kgb.metrics.speed import shape_cv, speedup

P_HW_SPEEDUP = 0.8  # "not slower than eager by more than 20 %": fast_0.8's threshold


def case_speedups(job: dict[str, Any]) -> list[float]:
    """Per timed case: eager time / kernel time (cases without an eager baseline left out)."""
    out = []
    for t in job.get("timings") or ():
        s = speedup(t.get("eager_ms"), t.get("median_ms"))
        if s is not None:
            out.append(s)
    return out


def speedup_median(job: dict[str, Any]) -> float | None:
    """Median of the per-case speedups; the job's own speedup_eager when cases lack one."""
    per_case = case_speedups(job)
    if per_case:
        return statistics.median(per_case)
    value = job.get("speedup_eager")
    return float(value) if isinstance(value, (int, float)) else None


def c_op(job: dict[str, Any]) -> float | None:
    """Correctness share over the task's planned cases (None: no case was planned or run)."""
    cov = job.get("coverage") or {}
    cases = cov.get("cases") or 0
    return (cov.get("passed") or 0) / cases if cases else None


def fast_on_hw(job: dict[str, Any] | None, threshold: float = P_HW_SPEEDUP) -> bool:
    """Correct on this hardware and at least `threshold` × eager."""
    if not job or job.get("verdict") != "passed":
        return False
    s = job.get("speedup_eager")
    return isinstance(s, (int, float)) and s >= threshold


def p_hw(jobs: Sequence[dict[str, Any] | None], threshold: float = P_HW_SPEEDUP) -> float | None:
    """P_hw: the share of runs (one job entry per hardware run, None where the run had no
    such job) whose kernel is correct and at least `threshold` × eager. None without runs."""
    if not jobs:
        return None
    return sum(fast_on_hw(j, threshold) for j in jobs) / len(jobs)


def composite(speedup_med: float | None, cv: float | None, correct_share: float | None,
              p_hw_value: float | None) -> float | None:
    """Speedup_med × (1 − CV_shape) × C_op × P_hw; None when a factor is unknown, except that
    a zero factor (nothing correct, never fast) makes it 0 whatever the others."""
    factors = [speedup_med, None if cv is None else min(1.0, max(0.0, 1.0 - cv)),
               correct_share, p_hw_value]
    if any(f is not None and f == 0 for f in factors):
        return 0.0
    if any(f is None for f in factors):
        return None
    result = 1.0
    for f in factors:
        result *= f  # type: ignore[operator]  # None excluded above
    return result


def job_scores(job: dict[str, Any], timed: bool) -> dict[str, float | None]:
    """A job's robustness fields for report.json. `timed`: the run's timings are meaningful;
    a job of an untimed run has no speed figure, so no composite."""
    passed = job.get("verdict") == "passed"
    med = speedup_median(job) if passed and timed else None
    cv = shape_cv(case_speedups(job)) if passed and timed else None
    share = c_op(job)
    if not passed:
        score: float | None = 0.0 if timed else None
    else:
        score = composite(med, cv, share, p_hw([job])) if timed else None
    return {"speedup_median": med, "shape_cv": cv, "c_op": share, "composite": score}


def mean_composite(jobs: Sequence[dict[str, Any]]) -> float | None:
    """The run's composite: the mean over the submitted kernels (failed ones score 0; suite
    tasks without a kernel are not kernels, and the coverage says how many there are); None
    when a kernel has none (an untimed run, no eager baseline) — as fast_p, it fails closed
    rather than averaging over the kernels that happen to have a figure."""
    jobs = [j for j in jobs if j.get("verdict") != "missing"]
    scores = [j.get("composite") for j in jobs]
    if not jobs or any(s is None for s in scores):
        return None
    return sum(s for s in scores if s is not None) / len(jobs)
