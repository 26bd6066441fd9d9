"""Comparison of a candidate's outputs with the reference's, on the trusted side.

A float output passes when NaN/±Inf positions match exactly, every finite element is within
atol + rtol·|ref| (allclose), AND the relative L2 error ‖out−ref‖/‖ref‖ is within rel_l2 — the
second test is what stops an all-zero answer from passing a task whose outputs are tiny
(threat 6). Integer outputs may differ by at most int_atol (where the task sets int_mismatch,
at most that share of the codes may differ at all, in place of rel_l2 over the codes; a task
with a `[zero_point]` has its codes compared as q - zero, kgb.judge.zero_point). A float8
output is compared in units in the last place of its format: at most int_atol ulps from the
reference (a quantizer's tie flipped by another float32 rounding of x / scale), NaN positions
exact, and its relative L2 error within rel_l2 (a kernel that truncates instead of rounding is
off by one ulp at half the elements). Codes that differ where the value the reference rounds
is a .5 tie (the task's `quotient`, kgb.judge.ties) are not counted against that share.

Where a float output misses only those bounds, it is judged once more against a float64
truth (the reference run on the inputs upcast, kgb.judge.truth), with honest float32 results as
the measure of rounding noise: PyTorch's (the reference's own result, and the task's float32
`baseline` where the reference computes wider) and the truth's sensitivity to one rounding of
the inputs. It passes when
- PyTorch's result is within rel_l2 of the truth (a reference that rounds on purpose gets no
  truth to hide behind);
- every missed element is within TRUTH_FACTOR of the noise: its own sensitivity (how far one
  rounding of the inputs moves it), or the worst error of an honest float32 result anywhere in
  the output (FlashAttention's test criterion);
- few misses need the second: at most max(MISS_MIN, MISS_FRACTION x size) — rounding noise
  breaks a bound at a handful of elements of millions, a reduced-precision computation at most
  of them;
- the error norm is within TRUTH_FACTOR of the largest honest one (PyTorch's, the baseline's,
  the sensitivity's).
A fixed atol is below honest rounding noise where the answer cancels or sums thousands of
terms: on an H100, honest solutions of 29 tasks missed by a few elements of millions; every
miss measured was within 1.6x of that noise (docs/decisions.md, session 20). A task whose
contract is accuracy at a few elements says `strict_tolerance` and none of this applies."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import torch

from kgb.judge.ties import float8_ties, integer_ties
from kgb.judge.zero_point import as_offsets
from kgb.tasks.model import Tolerance

TRUTH_FACTOR = 4.0  # how much further from the float64 truth than honest noise a kernel may be
MISS_MIN, MISS_FRACTION = 32, 1e-4  # misses the truth may forgive: max(32, 1e-4 x elements)


@dataclass(frozen=True)
class Truth:
    """One output's float64 truth, how far it moves when the inputs move by one rounding of
    the output dtype (kgb.judge.truth), and the task's float32 baseline's result when there is
    one (another honest measure of the noise)."""
    values: torch.Tensor
    sensitivity: torch.Tensor
    baseline: torch.Tensor | None = None


@dataclass(frozen=True)
class Comparison:
    passed: bool
    max_abs: float | None = None
    rel_l2: float | None = None
    message: str = ""
    numeric: bool = False  # failed only the atol/rtol/rel_l2 bounds: a float64 truth may decide
    codes: bool = False  # failed only the share of codes that moved: the quotient's ties may


def compare_outputs(candidate: list[torch.Tensor], reference: list[torch.Tensor],
                    tol: Tolerance, exact: bool = False,
                    truth: list[Truth] | None = None,
                    quotients: list[torch.Tensor | None] | None = None) -> Comparison:
    """`truth`: the float64 truth per output (kgb.judge.truth), for outputs that miss the
    bounds by rounding noise alone. `quotients`: per output, the float64 value the reference
    rounds to its codes (kgb.judge.ties), or None."""
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
    zp = tol.zero_point if not exact else None
    if zp is not None:  # an asymmetric quantizer: its codes as offsets from their zero point
        candidate, reference, problem = as_offsets(candidate, reference, zp)
        if problem:
            return Comparison(False, message=problem)
    for i, (out, ref) in enumerate(zip(candidate, reference)):
        own_truth = truth[i] if truth is not None and i < len(truth) and \
            tuple(truth[i].values.shape) == tuple(ref.shape) and \
            tuple(truth[i].sensitivity.shape) == tuple(ref.shape) else None
        if own_truth is not None and own_truth.baseline is not None and \
                tuple(own_truth.baseline.shape) != tuple(ref.shape):
            own_truth = replace(own_truth, baseline=None)
        own_tol = replace(tol, int_mismatch=zp.zeros_mismatch) if zp and i == zp.zeros else tol
        # codes compared as offsets from a zero point have no quotient of their own here
        quotient = quotients[i] if quotients is not None and i < len(quotients) and \
            zp is None else None
        if quotient is not None and tuple(quotient.shape) != tuple(ref.shape):
            quotient = None
        one = _compare_one(out, ref, own_tol, exact, truth=own_truth, quotient=quotient)
        if not one.passed:
            label = f"output {i}" + (" (codes - zero point)" if zp and i == zp.codes else "")
            return Comparison(False, one.max_abs, one.rel_l2, f"{label}: {one.message}",
                              one.numeric, one.codes)
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
    """How far the kernel's and the honest results are from the float64 truth, and what the
    elements that missed the bounds say about it."""
    ref_max: float = 0.0
    base_max: float = 0.0
    out_sq: float = 0.0
    ref_sq: float = 0.0
    base_sq: float = 0.0
    moves_sq: float = 0.0
    truth_sq: float = 0.0
    size: int = 0
    # misses further from the truth than TRUTH_FACTOR x their own sensitivity: how many, and
    # the worst (a miss within it is the noise one rounding of the inputs makes, however many)
    beyond: int = 0
    excess_max: float = 0.0

    def add(self, o: torch.Tensor, r: torch.Tensor, t: torch.Tensor, moves: torch.Tensor,
            b: torch.Tensor | None, missed: torch.Tensor) -> None:
        usable = torch.isfinite(r) & torch.isfinite(t)
        raw_err = (o - t).abs()
        out_err = torch.where(usable, raw_err, 0.0)
        ref_err = torch.where(usable, (r - t).abs(), 0.0)
        moves_raw, moves = moves, torch.where(usable & torch.isfinite(moves), moves, 0.0)
        self.ref_max = max(self.ref_max, float(ref_err.max()))
        self.out_sq += float(out_err.square().sum())
        self.ref_sq += float(ref_err.square().sum())
        self.moves_sq += float(moves.square().sum())
        self.truth_sq += float(torch.where(usable, t, 0.0).square().sum())
        if b is not None:
            base_err = torch.where(usable & torch.isfinite(b), (b - t).abs(), 0.0)
            self.base_max = max(self.base_max, float(base_err.max()))
            self.base_sq += float(base_err.square().sum())
        self.size += o.numel()
        # NaN/Inf in the truth or the sensitivity compare False: such a miss is beyond (infinite)
        beyond = missed & ~(raw_err <= TRUTH_FACTOR * moves_raw)
        hits = int(beyond.sum())
        if hits:
            self.beyond += hits
            self.excess_max = max(self.excess_max, float(
                torch.where(usable, out_err, math.inf)[beyond].max()))

    def _noise_max(self) -> float:
        return max(self.ref_max, self.base_max)

    def _noise_norm(self) -> float:
        return math.sqrt(max(self.ref_sq, self.base_sq, self.moves_sq))

    def _miss_limit(self) -> int:
        return max(MISS_MIN, int(MISS_FRACTION * self.size))

    def explains(self, tol: Tolerance) -> bool:
        """Every miss is rounding noise (the module's docstring)."""
        return self.ref_sq <= tol.rel_l2 ** 2 * self.truth_sq and \
            self.beyond <= self._miss_limit() and \
            self.excess_max <= TRUTH_FACTOR * self._noise_max() and \
            math.sqrt(self.out_sq) <= TRUTH_FACTOR * self._noise_norm()

    def describe(self, tol: Tolerance) -> str:
        if self.ref_sq > tol.rel_l2 ** 2 * self.truth_sq:
            return ("; PyTorch's own result is not within rel_l2 of the float64 truth (the "
                    "reference rounds on purpose: no truth to weigh noise against)")
        if self.beyond > self._miss_limit():
            return (f"; against a float64 truth, {self.beyond} misses beyond "
                    f"{TRUTH_FACTOR:g}x their sensitivity to one rounding of the inputs: too "
                    f"many for rounding noise (at most {self._miss_limit()})")
        if self.excess_max > TRUTH_FACTOR * self._noise_max():
            return (f"; against a float64 truth, a miss of {self.excess_max:.3g}: more than "
                    f"{TRUTH_FACTOR:g}x both its sensitivity to one rounding of the inputs and "
                    f"an honest float32 result's worst error ({self._noise_max():.3g})")
        noise = self._noise_norm()
        ratio = math.sqrt(self.out_sq) / noise if noise else math.inf
        return (f"; against a float64 truth its error norm is {ratio:.3g}x an honest float32 "
                f"result's (at most {TRUTH_FACTOR:g}x passes)")


def _compare_one(out: torch.Tensor, ref: torch.Tensor, tol: Tolerance, exact: bool,
                 chunk: int = CHUNK, truth: Truth | None = None,
                 quotient: torch.Tensor | None = None) -> Comparison:
    if out.numel() == 0:
        return Comparison(True, 0.0, 0.0)
    if exact:
        same = torch.equal(out, ref) if not ref.is_floating_point() else \
            torch.equal(out.contiguous().view(-1).view(torch.uint8),
                        ref.contiguous().view(-1).view(torch.uint8))
        return Comparison(same, None, None, "" if same else "not bit-exact")
    flat_out, flat_ref = out.reshape(-1), ref.reshape(-1)
    if not ref.is_floating_point():
        return _compare_integers(out, ref, flat_out, flat_ref, tol, chunk, quotient)
    if ref.element_size() == 1:  # float8: steps of its own grid, not atol/rtol
        return _compare_float8(out, ref, flat_out, flat_ref, tol, chunk, quotient)
    nonfinite = {name: _Count() for name in ("NaN", "+Inf", "-Inf")}
    outside, finite_n = _Count(), 0
    max_abs, err_sq, ref_sq = 0.0, 0.0, 0.0
    against = _TruthErrors() if truth is not None else None
    for lo, hi in _slices(flat_ref.numel(), chunk):
        o, r = flat_out[lo:hi].double(), flat_ref[lo:hi].double()
        floor = tol.atol + tol.rtol * r.abs()
        if against is not None and truth is not None:
            base = truth.baseline.reshape(-1)[lo:hi].double() \
                if truth.baseline is not None else None
            against.add(o, r, truth.values.reshape(-1)[lo:hi].double(),
                        truth.sensitivity.reshape(-1)[lo:hi].double(), base,
                        torch.isfinite(r) & ((o - r).abs() > floor))
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
    if (outside.n or l2_miss) and against is not None and against.explains(tol):
        return Comparison(True, max_abs, rel_l2)
    truth_note = against.describe(tol) if against is not None else ""
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
                      flat_ref: torch.Tensor, tol: Tolerance, chunk: int,
                      quotient: torch.Tensor | None = None) -> Comparison:
    wrong, moved, tied, max_abs, err_sq, ref_sq = _Count(), 0, 0, 0, 0.0, 0.0
    flat_q = quotient.reshape(-1) if quotient is not None else None
    for lo, hi in _slices(flat_ref.numel(), chunk):
        o, r = flat_out[lo:hi].to(torch.int64), flat_ref[lo:hi].to(torch.int64)
        diff = (o - r).abs()
        max_abs = max(max_abs, int(diff.max()))
        wrong.add(diff > tol.int_atol, lo)
        moved += int((diff > 0).sum())
        if flat_q is not None:
            tied += int(integer_ties(flat_q[lo:hi].to(o.device, torch.float64), o, r).sum())
        err_sq += float(diff.double().square().sum())
        ref_sq += float(r.double().square().sum())
    if wrong.n:
        return Comparison(False, float(max_abs), None,
                          f"{wrong.n} of {ref.numel()} integer elements differ by more than "
                          f"{tol.int_atol} (max {max_abs}){_difference_at(wrong.first, out, ref)}")
    # int_atol lets exact .5 ties flip; the relative L2 bound (or the share of codes that
    # moved) stops a kernel that is off by one everywhere (truncating instead of rounding)
    # from hiding inside that slack.
    rel_l2 = _ratio(err_sq, ref_sq)
    if tol.int_atol and tol.int_mismatch is not None:
        return _mismatch(moved, tied, ref.numel(), tol, float(max_abs), rel_l2,
                         quotient is not None)
    if tol.int_atol and rel_l2 > tol.rel_l2:
        return Comparison(False, float(max_abs), rel_l2,
                          f"relative L2 error {rel_l2:.3g} above {tol.rel_l2:g}")
    return Comparison(True, float(max_abs), rel_l2)


def _mismatch(moved: int, tied: int, n: int, tol: Tolerance, max_abs: float | None,
              rel_l2: float, weighed: bool) -> Comparison:
    """The share-of-codes bound (Tolerance.int_mismatch): at most that share of the codes may
    differ from the reference, each within int_atol — and at least three, so that two ties in
    a tiny tensor are not a failure. `tied` of the `moved` codes differ at a .5 tie of the
    reference's quotient (kgb.judge.ties; `weighed`: the quotient was known): not counted."""
    allowed = max(3, math.floor((tol.int_mismatch or 0.0) * n))
    if moved - tied > allowed:
        ties = f" besides {tied} at a .5 tie of the quotient" if tied else ""
        return Comparison(False, max_abs, rel_l2,
                          f"{moved - tied} of {n} codes differ from the reference (within "
                          f"{tol.int_atol} step(s)){ties}; at most {allowed} may (a tie another "
                          f"float32 rounding flips), not a different rounding everywhere",
                          codes=not weighed)
    return Comparison(True, max_abs, rel_l2)


def _ulp_key(bits: torch.Tensor) -> torch.Tensor:
    """Sign-magnitude float8 bits as integers in value order, both zeros 0: adjacent values of
    the format are adjacent integers (e4m3fn and e5m2 alike)."""
    b = bits.to(torch.int64)
    return torch.where(b >= 128, 128 - b, b)


def _compare_float8(out: torch.Tensor, ref: torch.Tensor, flat_out: torch.Tensor,
                    flat_ref: torch.Tensor, tol: Tolerance, chunk: int,
                    quotient: torch.Tensor | None = None) -> Comparison:
    nan, wrong, moved, tied, max_ulps, err_sq, ref_sq = _Count(), _Count(), 0, 0, 0, 0.0, 0.0
    flat_q = quotient.reshape(-1) if quotient is not None else None
    for lo, hi in _slices(flat_ref.numel(), chunk):
        o, r = flat_out[lo:hi], flat_ref[lo:hi]
        o_nan, r_nan = o.float().isnan(), r.float().isnan()
        nan.add(o_nan != r_nan, lo)
        ulps = torch.where(o_nan | r_nan, 0, (_ulp_key(o.view(torch.uint8))
                                             - _ulp_key(r.view(torch.uint8))).abs())
        max_ulps = max(max_ulps, int(ulps.max()))
        wrong.add(ulps > tol.int_atol, lo)
        moved += int((ulps > 0).sum())
        if flat_q is not None:
            v = flat_q[lo:hi].to(o.device, torch.float64)
            tied += int((float8_ties(v, o, r) & (ulps > 0)).sum())
        finite = torch.isfinite(r.double()) & torch.isfinite(o.double())
        err_sq += float(torch.where(finite, o.double() - r.double(), 0.0).square().sum())
        ref_sq += float(torch.where(finite, r.double(), 0.0).square().sum())
    if nan.n:
        return Comparison(False, math.inf, math.inf, f"NaN positions differ in {nan.n} "
                          f"element(s){_difference_at(nan.first, out, ref)}")
    rel_l2 = _ratio(err_sq, ref_sq)
    if wrong.n:
        return Comparison(False, None, rel_l2,
                          f"{wrong.n} of {ref.numel()} float8 elements more than "
                          f"{tol.int_atol} ulp(s) from the reference (max {max_ulps})"
                          f"{_difference_at(wrong.first, out, ref)}")
    if tol.int_atol and tol.int_mismatch is not None:
        return _mismatch(moved, tied, ref.numel(), tol, None, rel_l2, quotient is not None)
    if rel_l2 > tol.rel_l2:
        return Comparison(False, None, rel_l2,
                          f"relative L2 error {rel_l2:.3g} above {tol.rel_l2:g}")
    return Comparison(True, None, rel_l2)


def _difference_at(index: int | None, out: torch.Tensor, ref: torch.Tensor) -> str:
    """`; first at [i, j]: got X, expected Y` for a flat (row-major) index — what a person or a
    model needs to find the bug."""
    if index is None:
        return ""
    position = "[" + ", ".join(map(str, unravel(index, tuple(ref.shape)))) + "]"
    got, expected = out.reshape(-1)[index].item(), ref.reshape(-1)[index].item()
    return f"; first at {position}: got {got:.6g}, expected {expected:.6g}"


def unravel(index: int, shape: tuple[int, ...]) -> list[int]:
    """A flat row-major index as one index per dimension. Plain arithmetic: torch.unravel_index
    imports torch.fx's symbolic shapes and sympy (seconds of a judge's first failing call; every
    job's ghost-replay calls fail by design)."""
    where = []
    for size in reversed(shape):
        index, at = divmod(index, size) if size else (index, 0)
        where.append(at)
    return where[::-1]


def _ratio(err_sq: float, ref_sq: float) -> float:
    """‖error‖/‖ref‖ from sums of squares; 0 when both are zero, inf when only the reference
    is."""
    if ref_sq > 0:
        return math.sqrt(err_sq) / math.sqrt(ref_sq)
    return 0.0 if err_sq == 0 else math.inf
