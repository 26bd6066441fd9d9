"""The glue-only answer (threat 32), a suite-quality probe: for a task, the answer its reference
computes, rebuilt from host glue alone (allocation, views, fills, copies) and carried to a fresh
output by a Triton memcpy — the cheat that passed permute and roll on an H200. Where such an
answer exists, kgb must not pass it: the task's glue policy (`glue = "views"`) makes the
copies compute, and the trusted rule (D206) rejects them.

How it is built, for every task alike: the reference runs under a dispatch mode that lets glue
ops through (kgb.worker.evidence.GLUE_OPS), rebuilds the data-movement ops it knows from glue
(kgb.suite.glue_builders), runs lossless casts unseen (a candidate would simply not cast) and
stops at anything else: an answer that needs compute cannot be built and the task is safe from
this cheat. Around it runs the worker's own DispatchTrace, so the evidence is what a candidate
doing the same would leave; the trusted side's rule and comparison then judge it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("TRITON_INTERPRET", "1")

import torch
import triton
import triton.language as tl
from torch.utils._python_dispatch import TorchDispatchMode

from kgb import protocol as P
from kgb.judge.truth import as_outputs
from kgb.runner.verdict import rule_broken
from kgb.suite.glue_builders import builder_for
from kgb.worker.evidence import GLUE_OPS, DispatchTrace


class NotGlue(Exception):
    """The reference needs an op glue cannot do: no glue-only answer."""


@triton.jit
def _memcpy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point():
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return bool((a == b).all())


class _GlueOnly(TorchDispatchMode):
    """Entered inside the trace: what it lets through (and what its builders run) reaches the
    trace as a candidate's host code would dispatch it."""

    def __init__(self, trace: DispatchTrace) -> None:
        super().__init__()
        self.trace = trace
        self.built: set[str] = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func._schema.name.split("::")[-1]
        build = builder_for(func)
        if build is not None:
            self.built.add(name)
            return build(*args, **kwargs)
        if name in ("_to_copy", "to") and "dtype" in kwargs and args and \
                args[0].dtype != kwargs["dtype"]:
            return self._cast(func, args, kwargs)
        if name in GLUE_OPS:
            return func(*args, **kwargs)
        raise NotGlue(name)

    def _cast(self, func, args, kwargs):
        """A cast that loses nothing on these values: a candidate would keep the dtype."""
        self.trace.paused += 1
        try:
            out = func(*args, **kwargs)
            if not _same_bits(out.to(args[0].dtype), args[0]):
                raise NotGlue(f"_to_copy(dtype={kwargs['dtype']})")  # rounding is compute
            return out
        finally:
            self.trace.paused -= 1


@dataclass(frozen=True)
class GlueAnswer:
    outputs: list[torch.Tensor]
    record: P.CallRecord  # the evidence a candidate building it would leave
    built: tuple[str, ...]  # the data-movement ops rebuilt from glue


def glue_answer(reference: Any, inputs: tuple) -> GlueAnswer | None:
    """The reference's answer from glue and a Triton memcpy, or None when it needs compute."""
    trace = DispatchTrace()
    mode = _GlueOnly(trace)
    trace.start()
    try:
        with torch.no_grad():
            try:
                with mode:
                    staged = as_outputs(reference(*inputs))
            except NotGlue:
                return None
            staged = [t.contiguous() for t in staged]  # a view of an input is copied out too
    finally:
        torch_ops = trace.stop()
    outputs = []
    for t in staged:  # the Triton kernel only carries the answer to a fresh output
        out = torch.empty_like(t)
        n = t.numel() * t.element_size()
        if n:
            _memcpy[(triton.cdiv(n, 1024),)](t.view(-1).view(torch.uint8),
                                              out.view(-1).view(torch.uint8), n, BLOCK=1024)
        outputs.append(out)
    record = P.CallRecord(0, P.CallKind.PRIMARY, P.CaseStatus.RETURNED,
                          output_types=(P.PLAIN_TENSOR,) * len(outputs), launches=1,
                          torch_ops=torch_ops, copy_ops=tuple(sorted(trace.copies)))
    return GlueAnswer(outputs, record, tuple(sorted(mode.built)))


def verdict(answer: GlueAnswer, glue: str) -> str | None:
    """The rule that rejects the answer under the task's glue policy, or None (trusted side)."""
    broken = rule_broken(answer.record, glue)
    return None if broken is None else broken[0].id
