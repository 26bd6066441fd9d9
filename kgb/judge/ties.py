"""Exact ties of a quantizer's codes (issue 26): the elements where the value the reference
rounds lies on (or within a few float32 roundings of) the midpoint between two codes, so that
either neighbour is an honest answer.

A task's reference.py may define `quotient(*inputs)`: per output, the float64 value its codes
round (x * 127 / absmax, say), or None for an output that is not rounded codes. The judge calls
it (trusted code, on the trusted side) only when a candidate's codes failed the share bound
(Tolerance.int_mismatch), and the codes that differ at such a tie — each equal to one of the two
neighbours, as the reference's code is — are not counted against that bound.

Why: on bfloat16 inputs ties are not rare. A row whose absmax is 127 * 2**p (1.984375, 0.9921875,
3.96875: one bfloat16 value in about 128) makes x * 127 / absmax = x / 2**p exact, and every x
whose lowest set bit is 2**(p-1) a .5 tie — a quarter to a half of the row. Rounding half away
from zero (CUDA's roundf, SGLang's libdevice.round) then differs from half to even at half of
them: 4-6 of the tiny shape's 51 codes, over the share bound's floor of 3 (an H200 run of
SGLang's kernel, docs/decisions.md). A different rounding everywhere (truncation, off by one)
still moves the codes that are not ties, and those keep the share bound."""

from __future__ import annotations

import torch

# How far from a .5 tie, relative to the quotient, an honest float32 computation can land:
# x / fl(absmax / 127), x * fl(127 / absmax) and x * fl(1 / fl(absmax / 127)) each round two or
# three times (half a float32 ulp, 2**-24 relative, each); the reference's own float32 quotient
# is one of them. Four roundings' worth covers them all.
TIE_ROUNDINGS = 4
TIE_SLACK = TIE_ROUNDINGS * 2.0 ** -24


def _near(v: torch.Tensor, midpoint: torch.Tensor) -> torch.Tensor:
    return torch.isfinite(v) & ((v - midpoint).abs() <= TIE_SLACK * v.abs())


def integer_ties(v: torch.Tensor, out: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """Integer codes that differ at a tie of the quotient `v` (float64), both the candidate's
    and the reference's code one of its two neighbours floor(v) and floor(v) + 1."""
    low = torch.floor(v)
    tie = _near(v, low + 0.5)
    low_i = torch.where(tie, low, 0.0).to(torch.int64)
    o, r = out.to(torch.int64), ref.to(torch.int64)

    def neighbour(c: torch.Tensor) -> torch.Tensor:
        return (c == low_i) | (c == low_i + 1)

    return tie & (o != r) & neighbour(o) & neighbour(r)


def _value_bits(key: torch.Tensor) -> torch.Tensor:
    """The inverse of kgb.judge.compare._ulp_key: value-order integers to float8 bits."""
    return torch.where(key >= 0, key, 128 - key).to(torch.uint8)


def float8_ties(v: torch.Tensor, out: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """Float8 codes that differ at a tie of `v` (float64): v is the midpoint between two adjacent
    values of the format (within the slack), and the candidate's and the reference's codes are
    those two values."""
    fmt = ref.dtype
    top = float(torch.finfo(fmt).max)
    v = torch.where(torch.isfinite(v), v.clamp(-top, top), v)
    near = torch.nan_to_num(v, nan=0.0).to(fmt)  # round to nearest even: one neighbour
    near_v = near.double()
    bits = near.view(torch.uint8).to(torch.int64)
    key = torch.where(bits >= 128, 128 - bits, bits)
    step = torch.where(near_v < v, 1, -1)  # toward v: the other neighbour
    other = _value_bits((key + step).clamp(-126, 126)).view(fmt).double()
    tie = (near_v != v) & _near(v, (near_v + other) / 2)
    o, r = out.double(), ref.double()

    def neighbour(c: torch.Tensor) -> torch.Tensor:
        return (c == near_v) | (c == other)

    return tie & (out.view(torch.uint8) != ref.view(torch.uint8)) & neighbour(o) & neighbour(r)
