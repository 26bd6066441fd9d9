"""Comparison of a candidate's outputs with the reference's, on the trusted side.

A float output passes when NaN/±Inf positions match exactly, every finite element is within
atol + rtol·|ref| (allclose), AND the relative L2 error ‖out−ref‖/‖ref‖ is within rel_l2 — the
second test is what stops an all-zero answer from passing a task whose outputs are tiny
(threat 6). Integer outputs may differ by at most int_atol."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from kgb.tasks.model import Tolerance


@dataclass(frozen=True)
class Comparison:
    passed: bool
    max_abs: float | None = None
    rel_l2: float | None = None
    message: str = ""


def compare_outputs(candidate: list[torch.Tensor], reference: list[torch.Tensor],
                    tol: Tolerance, exact: bool = False) -> Comparison:
    if len(candidate) != len(reference):
        return Comparison(False, message=f"returned {len(candidate)} output(s), expected "
                                         f"{len(reference)}")
    worst = Comparison(True, 0.0, 0.0)
    for i, (out, ref) in enumerate(zip(candidate, reference)):
        if tuple(out.shape) != tuple(ref.shape):
            return Comparison(False, message=f"output {i} has shape {tuple(out.shape)}, expected "
                                             f"{tuple(ref.shape)}")
        if out.dtype != ref.dtype:
            return Comparison(False, message=f"output {i} has dtype {out.dtype}, expected "
                                             f"{ref.dtype}")
        one = _compare_one(out, ref, tol, exact)
        if not one.passed:
            return Comparison(False, one.max_abs, one.rel_l2, f"output {i}: {one.message}")
        worst = Comparison(True, max(worst.max_abs or 0.0, one.max_abs or 0.0),
                           max(worst.rel_l2 or 0.0, one.rel_l2 or 0.0))
    return worst


def _compare_one(out: torch.Tensor, ref: torch.Tensor, tol: Tolerance, exact: bool) -> Comparison:
    if out.numel() == 0:
        return Comparison(True, 0.0, 0.0)
    if exact:
        same = torch.equal(out, ref) if not ref.is_floating_point() else \
            torch.equal(out.contiguous().view(-1).view(torch.uint8),
                        ref.contiguous().view(-1).view(torch.uint8))
        return Comparison(same, None, None, "" if same else "not bit-exact")
    if not ref.is_floating_point():
        diff = (out.to(torch.int64) - ref.to(torch.int64)).abs()
        max_abs: float = int(diff.max())
        wrong = diff > tol.int_atol
        bad = int(wrong.sum())
        if bad:
            return Comparison(False, float(max_abs), None,
                              f"{bad} of {ref.numel()} integer elements differ by more than "
                              f"{tol.int_atol} (max {max_abs}){first_difference(wrong, out, ref)}")
        # int_atol lets exact .5 ties flip; the relative L2 bound stops a kernel that is off by
        # one everywhere (truncating instead of rounding) from hiding inside that slack.
        rel_l2 = _rel_l2(diff.double(), ref.double())
        if tol.int_atol and rel_l2 > tol.rel_l2:
            return Comparison(False, float(max_abs), rel_l2,
                              f"relative L2 error {rel_l2:.3g} above {tol.rel_l2:g}")
        return Comparison(True, float(max_abs), rel_l2)

    o, r = out.double(), ref.double()
    for name, test in (("NaN", torch.isnan), ("+Inf", torch.isposinf), ("-Inf", torch.isneginf)):
        differs = test(o) != test(r)
        mismatch = int(differs.sum())
        if mismatch:
            return Comparison(False, math.inf, math.inf,
                              f"{name} positions differ in {mismatch} element(s)"
                              f"{first_difference(differs, out, ref)}")
    finite = torch.isfinite(r)
    full_err = torch.where(finite, (o - r).abs(), torch.zeros_like(r))
    outside_mask = finite & (full_err > tol.atol + tol.rtol * r.abs())
    o, r = o[finite], r[finite]
    if r.numel() == 0:
        return Comparison(True, 0.0, 0.0)
    max_abs = float(full_err.max())
    rel_l2 = _rel_l2(o - r, r)
    outside = int(outside_mask.sum())
    if outside:
        return Comparison(False, max_abs, rel_l2,
                          f"{outside} of {r.numel()} elements outside atol={tol.atol:g} "
                          f"rtol={tol.rtol:g} (max abs error {max_abs:.3g})"
                          f"{first_difference(outside_mask, out, ref)}")
    # An all-zero reference gives rel_l2 = inf for any error; allclose alone judges it then.
    if rel_l2 != math.inf and rel_l2 > tol.rel_l2:
        return Comparison(False, max_abs, rel_l2,
                          f"relative L2 error {rel_l2:.3g} above {tol.rel_l2:g}")
    return Comparison(True, max_abs, rel_l2)


def first_difference(wrong: torch.Tensor, out: torch.Tensor, ref: torch.Tensor) -> str:
    """`; first at [i, j]: got X, expected Y` for the first element flagged in `wrong` (in
    row-major order) — what a person or a model needs to find the bug."""
    flat = torch.nonzero(wrong.reshape(-1), as_tuple=False)
    if flat.numel() == 0:
        return ""
    index = int(flat[0, 0])
    where = list(torch.unravel_index(torch.tensor(index), tuple(ref.shape))) if ref.dim() else []
    position = "[" + ", ".join(str(int(i)) for i in where) + "]"
    got, expected = out.reshape(-1)[index].item(), ref.reshape(-1)[index].item()
    return f"; first at {position}: got {got:.6g}, expected {expected:.6g}"


def _rel_l2(error: torch.Tensor, ref: torch.Tensor) -> float:
    """‖error‖/‖ref‖; 0 when both are zero, inf when only the reference is."""
    ref_norm = float(torch.linalg.vector_norm(ref))
    err_norm = float(torch.linalg.vector_norm(error))
    return err_norm / ref_norm if ref_norm > 0 else (0.0 if err_norm == 0 else math.inf)
