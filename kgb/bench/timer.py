"""The timing loop (design.md, Timing), the same for a candidate in the sandbox and for the
baselines in the trusted judge.

Per timed case: warm-up calls (not timed), then repeats until a time budget is met (at least
`min_reps`, at most `max_reps`, fewer when outputs are large since every timed output is kept for
re-checking). Each timed call gets fresh inputs — drawn from their own seed, at a new address
while the previous call's are still alive — so nothing keyed by pointer, shape or sampled value
can replay an answer; before it, the L2 is flushed and persisting lines are reset (kgb.bench.l2),
outside the timed window; CUDA events on the current stream bracket the call and a device-wide
synchronize follows, so work on other streams is waited for (and shows in the supervisor's
window, kgb.bench.channel). The CUDA event class is captured before any candidate code exists."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_Event: Any = None
_synchronize: Any = None


def capture_clocks() -> None:
    """Bind the event class and synchronize before the candidate is imported (threat 14)."""
    global _Event, _synchronize
    import torch

    _Event, _synchronize = torch.cuda.Event, torch.cuda.synchronize


@dataclass
class Loop:
    """What one timing loop produced (outputs stay on the device until they are committed)."""

    times_ms: list[float]
    outputs: list[Any]
    warmup: int
    wall_ms: float  # host clock over the timed calls (the span the supervisor's marks bracket)


def output_bytes(value: Any) -> int:
    import torch

    items = value if isinstance(value, (tuple, list)) else (value,)
    return sum(t.numel() * t.element_size() for t in items if isinstance(t, torch.Tensor))


def time_loop(call: Callable[[tuple], Any], inputs_for: Callable[[int], tuple], *,
              reset: Callable[[], None] | None = None, budget_ms: float = 300.0,
              min_reps: int = 10, max_reps: int = 100, warmup: int = 3, keep: bool = True,
              keep_bytes: int = 4 << 30, mark: Callable[[str], None] | None = None) -> Loop:
    """Time `call(inputs_for(i))` for i = 1, 2, ... (inputs_for(0) serves the warm-up). With
    `keep`, every timed call's outputs are kept (fewer repeats when they are large)."""
    import time

    assert _Event is not None, "capture_clocks() first"
    first = inputs_for(0)
    out = None
    for _ in range(warmup):
        out = call(first)
        _synchronize()
    if keep:
        per_output = max(1, output_bytes(out))
        max_reps = max(min(max_reps, keep_bytes // per_output), min(min_reps, 5))
        min_reps = min(min_reps, max_reps)
    del first, out
    times: list[float] = []
    outputs: list[Any] = []
    previous: tuple | None = None
    if mark is not None:
        mark("start")
    began = time.perf_counter()
    while len(times) < max_reps and (len(times) < min_reps or sum(times) < budget_ms):
        inputs = inputs_for(len(times) + 1)  # the previous call's inputs are still alive here
        if reset is not None:
            reset()
        _synchronize()
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        start.record()
        result = call(inputs)
        end.record()
        _synchronize()
        times.append(start.elapsed_time(end))
        if keep:
            outputs.append(result)
        del result
        previous = inputs
    wall_ms = (time.perf_counter() - began) * 1000.0
    if mark is not None:
        mark("end")
    del previous
    return Loop(times, outputs, warmup, wall_ms)


def summary(times_ms: list[float]) -> dict[str, float]:
    """median, IQR and CV of a case's timed calls (all in ms except cv)."""
    ordered = sorted(times_ms)
    if not ordered:
        return {}
    q = statistics.quantiles(ordered, n=4) if len(ordered) >= 2 else [ordered[0]] * 3
    mean = statistics.fmean(ordered)
    return {"median_ms": statistics.median(ordered), "iqr_ms": q[2] - q[0],
            "min_ms": ordered[0], "mean_ms": mean,
            "cv": statistics.pstdev(ordered) / mean if mean > 0 else 0.0}
