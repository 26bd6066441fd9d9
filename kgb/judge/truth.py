"""The float64 truth a float output is judged against when it misses its tolerance by rounding
noise alone (kgb.judge.compare): the task's reference run on the same inputs with every float
tensor upcast to float64, on the trusted side, and each element's sensitivity to one rounding
of the inputs. A reference that cannot run in float64 (an op without a double kernel, memory)
gives no truth, and the comparison's first answer stands. These, and the task's float32
`baseline` run as a second measure of honest noise, cost runs only for a call that missed its
bounds.

References compute in float32 on purpose (`x.float()`, `dtype=torch.float32`, then `.to(x.dtype)`):
under the truth every float32 the reference asks for is float64, or the "truth" would be
PyTorch's float32 answer again (on an H100 every honest kernel was then judged "inf times"
PyTorch's error). float16/bfloat16 conversions are left alone: a reference rounds to those on
purpose, and the trusted-truth test of kgb.judge.compare turns such a truth down."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from kgb.errors import gpu_memory_exhausted
from kgb.judge.compare import Comparison, Truth, compare_outputs
from kgb.tasks.model import Task, Tolerance


def _upcast(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.to(torch.float64)
    if isinstance(value, (tuple, list)):
        return type(value)(_upcast(v) for v in value)
    return value


def _wide(value: Any) -> Any:
    return torch.float64 if value is torch.float32 else value


class _Float32IsFloat64(TorchFunctionMode):
    """Every float32 a reference asks for (a dtype argument, `Tensor.float`) is float64."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.Tensor.float:
            return args[0].to(torch.float64)
        if func is not torch.Tensor.view:  # view(dtype) reinterprets bits: not a precision
            args = tuple(_wide(a) for a in args)
            kwargs = {k: _wide(v) for k, v in kwargs.items()}
        return func(*args, **kwargs)


def _in_float64(reference: Callable[..., Any], inputs: tuple) -> Any:
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # torch.zeros(n), torch.tensor(0.5) in the reference
    try:
        with torch.no_grad(), _Float32IsFloat64():
            return reference(*(_upcast(v) for v in inputs))
    finally:
        torch.set_default_dtype(default)


def as_outputs(produced: Any) -> list:
    """A trusted call's result (reference, baseline) as a list of outputs."""
    return list(produced) if isinstance(produced, (tuple, list)) else [produced]


def _raise_if_out_of_memory(exc: Exception) -> None:
    """A trusted measure (the truth, its sensitivity, the baseline, the quotient) that ran out
    of GPU memory is kgb's failure, not an answer: it goes up to the judge's loop, which names
    it gpu_memory, so the job is `unverified` and runs again alone where others shared the GPU
    (kgb.runner.schedule). Caught here, an honest near-miss stood as `incorrect` because a
    neighbour held the memory (run 22: fusion.bias_gelu_backward)."""
    if gpu_memory_exhausted(exc):
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
        raise exc


def float64_truth(reference: Callable[..., Any], inputs: tuple) -> list[torch.Tensor] | str:
    """The reference's outputs on float64 inputs with float32 read as float64, or why there are
    none."""
    try:
        produced = _in_float64(reference, inputs)
    except Exception as exc:
        _raise_if_out_of_memory(exc)
        lines = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {lines[0][:160] if lines else ''}"
    outputs = as_outputs(produced)
    if not all(isinstance(t, torch.Tensor) for t in outputs):
        return "the reference returned something other than tensors"
    return outputs


PERTURBATION_DRAWS = 2  # random-sign input perturbations; an element's sensitivity is the max


def _perturbed(value: Any, scale: float, gen: torch.Generator | None) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        signs = torch.randint(0, 2, value.shape, generator=gen, device=value.device)
        return value.to(torch.float64) * (1 + scale * (2 * signs - 1).to(torch.float64))
    if isinstance(value, (tuple, list)):
        return type(value)(_perturbed(v, scale, gen) for v in value)
    return value


def _moves(reference: Callable[..., Any], inputs: tuple, values: list[torch.Tensor],
           scale: float, seed: int, only: int | None) -> list[torch.Tensor | None] | str:
    """|truth(perturbed) - truth| per output (None: another shape): every float input moved by
    `scale` with random signs from `seed`, or only input `only`."""
    device = next((v.device for v in inputs if isinstance(v, torch.Tensor)), None)
    gen = torch.Generator(device=device) if device is not None else None
    if gen is not None:
        gen.manual_seed(seed)
    got = float64_truth(reference, tuple(_perturbed(v, scale, gen) if only in (None, i) else v
                                         for i, v in enumerate(inputs)))
    if isinstance(got, str):
        return got
    if len(got) != len(values):
        return "the reference returned another number of outputs on perturbed inputs"
    return [(g.double() - v.double()).abs() if g.shape == v.shape else None
            for g, v in zip(got, values)]


def sensitivity(reference: Callable[..., Any], inputs: tuple, values: list[torch.Tensor],
                unit: float) -> list[torch.Tensor] | str:
    """How far each truth element moves when the float inputs move by one rounding (`unit`,
    the output dtype's unit roundoff) with random signs: the size of the rounding noise an
    honest computation at that precision can show there (backward stability). The max over
    PERTURBATION_DRAWS draws of every input at once, from fixed seeds (the trusted side's;
    nothing to game), and, where a reference has several float inputs, one draw of each input
    alone: moved together with independent signs, a product's two factors cancel to second
    order at half the elements a draw, so a dominant term went unseen at a quarter of them (AWQ's
    outliers, session 30: an honest kernel failed). An input moved alone also crosses any
    discontinuity at its exact values (sign(pred - target) of equal values, an x of exactly 1 at
    an open bound), which is no rounding an honest kernel makes there: its move counts only
    where it is smooth — twice the move for twice the perturbation."""
    moved: list[torch.Tensor] = [torch.zeros_like(v, dtype=torch.float64) for v in values]

    def take(moves: list[torch.Tensor | None]) -> None:
        for k, m in enumerate(moves):
            if m is not None:
                moved[k] = torch.maximum(moved[k], m)

    for draw in range(PERTURBATION_DRAWS):
        got = _moves(reference, inputs, values, unit, 1000 + draw, None)
        if isinstance(got, str):
            return got
        take(got)
    alone = [i for i, v in enumerate(inputs) if isinstance(v, torch.Tensor)
             and v.is_floating_point()]
    for i in alone if len(alone) > 1 else ():
        once = _moves(reference, inputs, values, unit, 2000 + i, i)
        twice = _moves(reference, inputs, values, 2 * unit, 2000 + i, i)
        if isinstance(once, str) or isinstance(twice, str):
            return once if isinstance(once, str) else str(twice)
        take([None if a is None or b is None else
              torch.where((b >= 1.5 * a) & (b <= 2.5 * a), a, torch.zeros_like(a))
              for a, b in zip(once, twice)])
    return moved


def _unit(expected: list[torch.Tensor]) -> float:
    units = [torch.finfo(t.dtype).eps / 2 for t in expected if t.is_floating_point()]
    return max(units) if units else torch.finfo(torch.float32).eps / 2


def baseline_outputs(baseline: Callable[..., Any] | None, inputs: tuple,
                     expected: list[torch.Tensor]) -> list[torch.Tensor | None]:
    """The task's float32 `baseline` on the same inputs (trusted code, like the reference): a
    second honest measure of the rounding noise where the reference computes wider. A baseline
    that fails or answers in another form is left out (None), never a reason to pass."""
    if baseline is None:
        return [None] * len(expected)
    try:
        with torch.no_grad():
            produced = baseline(*inputs)
    except Exception as exc:
        _raise_if_out_of_memory(exc)
        return [None] * len(expected)
    got = as_outputs(produced)
    if len(got) != len(expected):
        return [None] * len(expected)
    return [g if isinstance(g, torch.Tensor) and g.shape == e.shape else None
            for g, e in zip(got, expected)]


def quotient_outputs(quotient: Callable[..., Any], inputs: tuple,
                     expected: list[torch.Tensor]) -> list[torch.Tensor | None] | str:
    """The task's `quotient(*inputs)` (trusted code): per output, the float64 value its codes
    round, or None; or why there are none (it failed, or answered in another form): the share
    bound then stands as it is (fail closed)."""
    try:
        with torch.no_grad():
            got = as_outputs(quotient(*inputs))
    except Exception as exc:
        _raise_if_out_of_memory(exc)
        lines = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {lines[0][:160] if lines else ''}"
    if len(got) != len(expected):
        return f"it returned {len(got)} output(s), expected {len(expected)}"
    return [g.double() if isinstance(g, torch.Tensor) and g.shape == e.shape else None
            for g, e in zip(got, expected)]


def compare_with_truth(outputs: list[torch.Tensor], expected: list[torch.Tensor],
                       inputs: tuple, reference: Callable[..., Any], tol: Tolerance,
                       exact: bool = False,
                       baseline: Callable[..., Any] | None = None,
                       strict: bool = False,
                       quotient: Callable[..., Any] | None = None) -> Comparison:
    """compare_outputs, and for outputs that miss only the numeric bounds, again against the
    float64 truth with the reference's, the `baseline`'s and the sensitivity's noise as the
    measure (kgb.judge.compare); without a truth the first answer stands, with the reason.
    `strict` (a task's strict_tolerance): the bounds are the contract, nothing is forgiven.
    Codes that miss only the share bound are weighed again with the ties of the task's
    `quotient` (kgb.judge.ties) — under strict too: the contract names those ties."""
    result = compare_outputs(outputs, expected, tol, exact=exact)
    if not result.passed and result.codes and quotient is not None:
        quotients = quotient_outputs(quotient, inputs, expected)
        result = compare_outputs(outputs, expected, tol, exact=exact, quotients=quotients) \
            if not isinstance(quotients, str) else \
            replace(result, message=f"{result.message} (the task's quotient gave no ties: "
                                    f"{quotients})")
    if result.passed or not result.numeric or strict:
        return result
    values = float64_truth(reference, inputs)
    moves = sensitivity(reference, inputs, values, _unit(expected)) \
        if not isinstance(values, str) else values
    if isinstance(values, str) or isinstance(moves, str):
        why = values if isinstance(values, str) else moves
        return replace(result, message=f"{result.message} (no float64 truth to weigh rounding "
                                       f"noise: {why})")
    bases = baseline_outputs(baseline, inputs, expected)
    truth = [Truth(v, m, b) for v, m, b in zip(values, moves, bases)]
    return compare_outputs(outputs, expected, tol, exact=exact, truth=truth)


def compare_for_task(task: Task, reference: Any, outputs: list[torch.Tensor],
                     expected: list[torch.Tensor], inputs: tuple, dtype: str) -> Comparison:
    """compare_with_truth as a task asks for it: its tolerance for `dtype`, exact or not, its
    reference module's `reference` and `baseline`, its strict_tolerance."""
    return compare_with_truth(outputs, expected, inputs, reference.reference,
                              task.tolerance_for(dtype), exact=task.compare == "exact",
                              baseline=getattr(reference, "baseline", None),
                              strict=task.strict_tolerance,
                              quotient=getattr(reference, "quotient", None))
