"""Casts in host glue (issue 26 residual 1): glue may move values, never change them. A PyTorch
write of one dtype's values into another that cannot hold them all — `out.copy_(x)`,
`out[...] = x`, `.to(dtype)`, `fill_` from a tensor — is compute (D206) on every task; one
into a dtype that holds every source value exactly (bf16 → fp32, int8 → int32) is a copy,
judged by the task's glue policy like any other. The end-to-end cheat (a Triton kernel that
stores float32 and `q.copy_(y)` that rounds it to e4m3, which passed before) is
tests/fixtures/dynamic/d206_fp8_rounding_by_copy.py."""

from __future__ import annotations

import pytest
import torch

from kgb import protocol as P
from kgb.runner.verdict import rule_broken
from kgb.worker.casts import exact
from kgb.worker.evidence import DispatchTrace


def _traced(fn) -> tuple[tuple[str, ...], tuple[str, ...]]:
    trace = DispatchTrace()
    trace.start()
    try:
        fn()
    finally:
        ops = trace.stop()
    return ops, tuple(sorted(trace.copies))


X32 = torch.randn(4, 6)


@pytest.mark.parametrize("write, note", [
    (lambda: torch.empty(4, 6, dtype=torch.bfloat16).copy_(X32), "copy_(float32->bfloat16)"),
    (lambda: torch.empty(4, 6, dtype=torch.float8_e4m3fn).copy_(X32),
     "copy_(float32->float8_e4m3fn)"),
    (lambda: torch.empty(4, 6, dtype=torch.int8).copy_(X32 * 0), "copy_(float32->int8)"),
    (lambda: torch.empty(4, 6, dtype=torch.float16).__setitem__(slice(None), X32),
     "copy_(float32->float16)"),
    (lambda: torch.empty(3, dtype=torch.bfloat16).fill_(X32[0, 0]), "fill_(float32->bfloat16)"),
    (lambda: X32.to(torch.bfloat16), "_to_copy(float32->bfloat16)"),
    (lambda: X32.half(), "_to_copy(float32->float16)"),
    (lambda: torch.empty(4, dtype=torch.int8).copy_(torch.arange(4)), "copy_(int64->int8)"),
])
def test_a_cast_that_can_change_values_is_compute(write, note):
    ops, _ = _traced(write)
    assert note in ops, ops


def test_a_widening_or_same_dtype_copy_is_a_copy():
    bf16, i32 = X32.to(torch.bfloat16), torch.arange(4, dtype=torch.int32)
    for write in (lambda: torch.empty(4, 6).copy_(bf16),  # bf16 -> fp32 holds every value
                  lambda: torch.empty(4, dtype=torch.int64).copy_(i32),
                  lambda: torch.empty(4, 6).copy_(X32)):
        assert _traced(write) == ((), ("copy_",))


def test_exactness_follows_the_formats():
    T = torch
    holds = [(T.bfloat16, T.float32), (T.float16, T.float32), (T.float32, T.float64),
             (T.float8_e4m3fn, T.float16), (T.float8_e5m2, T.bfloat16), (T.int8, T.int32),
             (T.uint8, T.int16), (T.int8, T.bfloat16), (T.int16, T.float32),
             (T.int32, T.float64), (T.bool, T.int8), (T.float8_e8m0fnu, T.float32)]
    loses = [(T.float32, T.bfloat16), (T.float16, T.bfloat16), (T.bfloat16, T.float16),
             (T.float32, T.float8_e4m3fn), (T.float8_e5m2, T.float8_e4m3fn),
             (T.int32, T.int8), (T.uint8, T.int8), (T.int8, T.uint8), (T.int16, T.float16),
             (T.int32, T.float32), (T.int64, T.float64), (T.float32, T.int32),
             (T.int8, T.bool), (T.float4_e2m1fn_x2, T.float32), (T.complex64, T.float32)]
    assert all(exact(s, d) for s, d in holds)
    assert not any(exact(s, d) for s, d in loses)


def test_the_trusted_side_rejects_a_rounding_copy_on_every_task():
    record = P.CallRecord(0, P.CallKind.PRIMARY, P.CaseStatus.RETURNED,
                          output_types=(P.PLAIN_TENSOR,), launches=1,
                          torch_ops=("copy_(float32->float8_e4m3fn)",), copy_ops=("copy_",))
    for glue in ("copies", "views"):
        rule, why = rule_broken(record, glue) or (None, "")
        assert rule is not None and rule.id == "D206" and "copy_(float32->float8_e4m3fn)" in why
