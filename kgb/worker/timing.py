"""The worker's timing of a passing case on a GPU (CUDA events). A first figure only; the
timing protocol of design.md (L2 flush, rotated inputs, re-checked outputs, two clocks) is
kgb.bench's. The clocks are captured before the candidate is imported (threat 14)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgb import protocol as P

_Event: Any = None


def capture() -> None:
    global _Event
    import torch

    _Event = torch.cuda.Event


def largest_case(spec: P.JobSpec, records: list[P.CaseRecord], task_inputs: Any,
                 entry: Callable) -> P.TimingRecord | None:
    """Median of 10 CUDA-event times on the largest standard case whose calls all returned."""
    import torch

    from kgb.tasks.casegen import generate_inputs

    returned = {r.id for r in records
                if r.calls and all(c.status == P.CaseStatus.RETURNED for c in r.calls)}
    candidates = [c for c in spec.cases if c.id in returned and c.mode == "standard"]
    if not candidates:
        return None
    case = max(candidates, key=lambda c: _numel(c.dims))
    inputs = generate_inputs(task_inputs, case.dims, case.dtype, case.mode, case.seed,
                             spec.device, case.layout, spec.layout_inputs)
    for _ in range(2):
        entry(*inputs)
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        start.record()
        entry(*inputs)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return P.TimingRecord(case.id, times[len(times) // 2], len(times), "cuda-events, no L2 flush")


def _numel(dims: dict[str, int]) -> int:
    n = 1
    for v in dims.values():
        n *= int(v)
    return n
