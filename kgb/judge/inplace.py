"""In-place tasks on the trusted side (docs/tasks.md, "In-place tasks"): a task's reference
and baseline update the declared inputs in place, as the real optimizer does and as the kernel
must. Everything that judges (the comparison, the float64 truth and its perturbations, the
timed re-checks, the suite-quality probes) calls them through `out_of_place`: on clones, the
clones of the declared inputs returned as the outputs, so the judge's own inputs are never
changed and the same inputs can be used twice. The eager and torch.compile baselines are timed
in place, on each repetition's fresh inputs, like the kernel: no clone in their timed window."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import torch


def out_of_place(fn: Callable[..., Any], inplace: tuple[int, ...]) -> Callable[..., tuple]:
    """`fn` run on clones of the tensor inputs; the clones at `inplace` are its outputs."""

    def call(*inputs: Any) -> tuple:
        clones = tuple(v.clone() if isinstance(v, torch.Tensor) else v for v in inputs)
        fn(*clones)  # what it returns is ignored, as the kernel's is
        return tuple(clones[i] for i in inplace)

    call.__name__ = getattr(fn, "__name__", "reference")
    return call


def as_judged(reference: Any, inplace: tuple[int, ...]) -> Any:
    """The reference module as the comparison calls it: unchanged for an out-of-place task;
    for an in-place one, a namespace with `reference` and `baseline` made out of place."""
    if not inplace:
        return reference
    names = {k: v for k, v in vars(reference).items() if not k.startswith("__")}
    for name in ("reference", "baseline"):
        fn = names.get(name)
        if callable(fn):
            names[name] = out_of_place(fn, inplace)
    return SimpleNamespace(**names)
