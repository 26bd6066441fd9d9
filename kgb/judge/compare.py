"""Comparison of a candidate's outputs with the reference's, on the trusted side.

A float output passes when NaN/±Inf positions match exactly, every finite element is within
atol + rtol·|ref| (allclose), AND the relative L2 error ‖out−ref‖/‖ref‖ is within rel_l2 — the
second test is what stops an all-zero answer from passing a task whose outputs are tiny
(threat 6). Integer outputs may differ by at most int_atol.

Where a float output misses only those bounds, it is judged once more against a float64
truth (the reference run on the inputs upcast, kgb.judge.truth): it passes when it is at most
TRUTH_FACTOR times as far from the truth as PyTorch's own result, in the worst element and in
norm — the FlashAttention tests' criterion — and every element that missed is ill-conditioned:
one rounding of the inputs moves its truth by at least 1/(2 TRUTH_FACTOR) of the bound. A fixed
atol is below honest rounding noise where the answer cancels (grad * (1 - y^2) with y near 1
and a large grad): the kernel and PyTorch are both a few ulps of the operands off there, and
both are right; an ordinary element is never forgiven. The truth is trusted only where
PyTorch's result is accurate overall (within rel_l2 of it): a reference that rounds on purpose
does not widen anything."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from kgb.tasks.model import Tolerance

TRUTH_FACTOR = 4.0  # how much further from the float64 truth than PyTorch a kernel may be


@dataclass(frozen=True)
class Truth:
    """One output's float64 truth, and how far it moves when the inputs move by one rounding
    of the output dtype (kgb.judge.truth): where it barely moves, no rounding explains a miss."""
    values: torch.Tensor
    sensitivity: torch.Tensor


@dataclass(frozen=True)
class Comparison:
    passed: bool
    max_abs: float | None = None
    rel_l2: float | None = None
    message: str = ""
    numeric: bool = False  # failed only the atol/rtol/rel_l2 bounds: a float64 truth may decide


def compare_outputs(candidate: list[torch.Tensor], reference: list[torch.Tensor],
                    tol: Tolerance, exact: bool = False,
                    truth: list[Truth] | None = None) -> Comparison:
    """`truth`: the float64 truth per output (kgb.judge.truth), for outputs that miss the
    bounds by rounding noise alone."""
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
        own_truth = truth[i] if truth is not None and i < len(truth) and \
            tuple(truth[i].values.shape) == tuple(ref.shape) and \
            tuple(truth[i].sensitivity.shape) == tuple(ref.shape) else None
        one = _compare_one(out, ref, tol, exact, truth=own_truth)
        if not one.passed:
            return Comparison(False, one.max_abs, one.rel_l2, f"output {i}: {one.message}",
                              one.numeric)
        worst = Comparison(True, max(worst.max_abs or 0.0, one.max_abs or 0.0),
                           max(worst.rel_l2 or 0.0, one.rel_l2 or 0.0))
    return worst


# Elements compared at a time: the float64 temporaries of one slice stay near 128 MiB each, so
# a 6.4 GB output is judged in a few GB of device memory rather than ten times its size.
CHUNK = 1 << 24


def _slices(n: int, chunk: int):
    for lo in range(0, n, chunk):
        yield lo, min(n, lo + chunk)


def _first(mask: torch.Tensor, lo: int) -> int | None:
    hit = torch.nonzero(mask, as_tuple=False)
    return lo + int(hit[0, 0]) if hit.numel() else None


@dataclass
class _Count:
    """Elements flagged across slices, and the first one (a flat index)."""
    n: int = 0
    first: int | None = None

    def add(self, mask: torch.Tensor, lo: int) -> None:
        hits = int(mask.sum())
        if hits:
            self.n += hits
            if self.first is None:
                self.first = _first(mask, lo)


@dataclass
class _TruthErrors:
    """How far the kernel's and PyTorch's results are from the float64 truth."""
    out_max: float = 0.0
    ref_max: float = 0.0
    out_sq: float = 0.0
    ref_sq: float = 0.0
    truth_sq: float = 0.0

    def add(self, o: torch.Tensor, r: torch.Tensor, t: torch.Tensor) -> None:
        usable = torch.isfinite(r) & torch.isfinite(t)
        out_err = torch.where(usable, (o - t).abs(), 0.0)
        ref_err = torch.where(usable, (r - t).abs(), 0.0)
        self.out_max = max(self.out_max, float(out_err.max()))
        self.ref_max = max(self.ref_max, float(ref_err.max()))
        self.out_sq += float(out_err.square().sum())
        self.ref_sq += float(ref_err.square().sum())
        self.truth_sq += float(torch.where(usable, t, 0.0).square().sum())

    def as_accurate_as_pytorch(self, tol: Tolerance) -> bool:
        trusted = self.ref_sq <= tol.rel_l2 ** 2 * self.truth_sq  # PyTorch is right overall
        return trusted and self.out_max <= TRUTH_FACTOR * self.ref_max and \
            math.sqrt(self.out_sq) <= TRUTH_FACTOR * math.sqrt(self.ref_sq)

    def describe(self, unexplained: int) -> str:
        worst = self.out_max / self.ref_max if self.ref_max else math.inf
        where = (f"; {unexplained} miss(es) where the answer is well conditioned (rounding "
                 f"cannot explain them)") if unexplained else ""
        return (f"; against a float64 truth its worst error is {worst:.3g}x PyTorch's own "
                f"(at most {TRUTH_FACTOR:g}x passes){where}")


def _compare_one(out: torch.Tensor, ref: torch.Tensor, tol: Tolerance, exact: bool,
                 chunk: int = CHUNK, truth: Truth | None = None) -> Comparison:
    if out.numel() == 0:
        return Comparison(True, 0.0, 0.0)
    if exact:
        same = torch.equal(out, ref) if not ref.is_floating_point() else \
            torch.equal(out.contiguous().view(-1).view(torch.uint8),
                        ref.contiguous().view(-1).view(torch.uint8))
        return Comparison(same, None, None, "" if same else "not bit-exact")
    flat_out, flat_ref = out.reshape(-1), ref.reshape(-1)
    if not ref.is_floating_point():
        return _compare_integers(out, ref, flat_out, flat_ref, tol, chunk)
    nonfinite = {name: _Count() for name in ("NaN", "+Inf", "-Inf")}
    outside, finite_n = _Count(), 0
    max_abs, err_sq, ref_sq = 0.0, 0.0, 0.0
    against = _TruthErrors() if truth is not None else None
    unexplained = _Count()  # misses at elements no rounding of this precision can move so far
    for lo, hi in _slices(flat_ref.numel(), chunk):
        o, r = flat_out[lo:hi].double(), flat_ref[lo:hi].double()
        floor = tol.atol + tol.rtol * r.abs()
        if against is not None and truth is not None:
            against.add(o, r, truth.values.reshape(-1)[lo:hi].double())
            moves = truth.sensitivity.reshape(-1)[lo:hi].double()
            unexplained.add(torch.isfinite(r) & ((o - r).abs() > floor) &
                            (moves < floor / (2 * TRUTH_FACTOR)), lo)
        for name, test in (("NaN", torch.isnan), ("+Inf", torch.isposinf),
                           ("-Inf", torch.isneginf)):
            nonfinite[name].add(test(o) != test(r), lo)
        finite = torch.isfinite(r)
        err = torch.where(finite, (o - r).abs(), torch.zeros_like(r))
        outside.add(finite & (err > floor), lo)
        max_abs = max(max_abs, float(err.max()))
        finite_n += int(finite.sum())
        err_sq += float(torch.where(finite, err, 0.0).square().sum())
        ref_sq += float(torch.where(finite, r, 0.0).square().sum())
    for name, count in nonfinite.items():
        if count.n:
            return Comparison(False, math.inf, math.inf,
                              f"{name} positions differ in {count.n} element(s)"
                              f"{_difference_at(count.first, out, ref)}")
    if finite_n == 0:
        return Comparison(True, 0.0, 0.0)
    rel_l2 = _ratio(err_sq, ref_sq)
    # An all-zero reference gives rel_l2 = inf for any error; allclose alone judges it then.
    l2_miss = rel_l2 != math.inf and rel_l2 > tol.rel_l2
    if (outside.n or l2_miss) and against is not None and not unexplained.n and \
            against.as_accurate_as_pytorch(tol):
        return Comparison(True, max_abs, rel_l2)
    truth_note = against.describe(unexplained.n) if against is not None else ""
    if outside.n:
        return Comparison(False, max_abs, rel_l2,
                          f"{outside.n} of {finite_n} elements outside atol={tol.atol:g} "
                          f"rtol={tol.rtol:g} (max abs error {max_abs:.3g})"
                          f"{_difference_at(outside.first, out, ref)}{truth_note}", numeric=True)
    if l2_miss:
        return Comparison(False, max_abs, rel_l2,
                          f"relative L2 error {rel_l2:.3g} above {tol.rel_l2:g}{truth_note}",
                          numeric=True)
    return Comparison(True, max_abs, rel_l2)


def _compare_integers(out: torch.Tensor, ref: torch.Tensor, flat_out: torch.Tensor,
                      flat_ref: torch.Tensor, tol: Tolerance, chunk: int) -> Comparison:
    wrong, max_abs, err_sq, ref_sq = _Count(), 0, 0.0, 0.0
    for lo, hi in _slices(flat_ref.numel(), chunk):
        o, r = flat_out[lo:hi].to(torch.int64), flat_ref[lo:hi].to(torch.int64)
        diff = (o - r).abs()
        max_abs = max(max_abs, int(diff.max()))
        wrong.add(diff > tol.int_atol, lo)
        err_sq += float(diff.double().square().sum())
        ref_sq += float(r.double().square().sum())
    if wrong.n:
        return Comparison(False, float(max_abs), None,
                          f"{wrong.n} of {ref.numel()} integer elements differ by more than "
                          f"{tol.int_atol} (max {max_abs}){_difference_at(wrong.first, out, ref)}")
    # int_atol lets exact .5 ties flip; the relative L2 bound stops a kernel that is off by
    # one everywhere (truncating instead of rounding) from hiding inside that slack.
    rel_l2 = _ratio(err_sq, ref_sq)
    if tol.int_atol and rel_l2 > tol.rel_l2:
        return Comparison(False, float(max_abs), rel_l2,
                          f"relative L2 error {rel_l2:.3g} above {tol.rel_l2:g}")
    return Comparison(True, float(max_abs), rel_l2)


def _difference_at(index: int | None, out: torch.Tensor, ref: torch.Tensor) -> str:
    """`; first at [i, j]: got X, expected Y` for a flat (row-major) index — what a person or a
    model needs to find the bug."""
    if index is None:
        return ""
    where = list(torch.unravel_index(torch.tensor(index), tuple(ref.shape))) if ref.dim() else []
    position = "[" + ", ".join(str(int(i)) for i in where) + "]"
    got, expected = out.reshape(-1)[index].item(), ref.reshape(-1)[index].item()
    return f"; first at {position}: got {got:.6g}, expected {expected:.6g}"


def _ratio(err_sq: float, ref_sq: float) -> float:
    """‖error‖/‖ref‖ from sums of squares; 0 when both are zero, inf when only the reference
    is."""
    if ref_sq > 0:
        return math.sqrt(err_sq) / math.sqrt(ref_sq)
    return 0.0 if err_sq == 0 else math.inf
