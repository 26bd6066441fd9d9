"""The float64 truth a float output is judged against when it misses its tolerance by rounding
noise alone (kgb.judge.compare): the task's reference run on the same inputs with every float
tensor upcast to float64, on the trusted side. A reference that cannot run in float64 (an op
without a double kernel, memory) gives no truth, and the comparison's first answer stands."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import torch

from kgb.judge.compare import Comparison, compare_outputs
from kgb.tasks.model import Tolerance


def _upcast(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.to(torch.float64)
    if isinstance(value, (tuple, list)):
        return type(value)(_upcast(v) for v in value)
    return value


def float64_truth(reference: Callable[..., Any], inputs: tuple) -> list[torch.Tensor] | str:
    """The reference's outputs on float64 inputs, or why there are none."""
    try:
        with torch.no_grad():
            produced = reference(*(_upcast(v) for v in inputs))
    except Exception as exc:
        if isinstance(exc, torch.OutOfMemoryError) and torch.cuda.is_available():
            torch.cuda.empty_cache()
        lines = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {lines[0][:160] if lines else ''}"
    outputs = list(produced) if isinstance(produced, (tuple, list)) else [produced]
    if not all(isinstance(t, torch.Tensor) for t in outputs):
        return "the reference returned something other than tensors"
    return outputs


def compare_with_truth(outputs: list[torch.Tensor], expected: list[torch.Tensor],
                       inputs: tuple, reference: Callable[..., Any], tol: Tolerance,
                       exact: bool = False) -> Comparison:
    """compare_outputs, and for outputs that miss only the numeric bounds, again against the
    float64 truth; without a truth the first answer stands, with the reason."""
    result = compare_outputs(outputs, expected, tol, exact=exact)
    if result.passed or not result.numeric:
        return result
    truth = float64_truth(reference, inputs)
    if isinstance(truth, str):
        return replace(result, message=f"{result.message} (no float64 truth to weigh rounding "
                                       f"noise: {truth})")
    return compare_outputs(outputs, expected, tol, exact=exact, truth=truth)
