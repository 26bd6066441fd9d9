import math

import torch
import torch.nn.functional as F

from kgb.tasks import stats

ALPHA = 1.7580993408473766  # SELU's -lambda * alpha: the value SELU saturates to is -ALPHA
# Relative bound on an output against its float64 value rounded once: ~1-2 ulps of the dtype
# (a kernel computes a * x + c in float32 with its own rounding of a and c)
_RTOL = {torch.float32: 2e-6, torch.float16: 2e-3, torch.bfloat16: 1e-2}


def coefficients(p: float) -> tuple[float, float, float]:
    """(a, kept offset, dropped value): kept = a * x + a * ALPHA * p, dropped = -a * ALPHA * (1 - p)."""
    a = 1.0 / math.sqrt((ALPHA * ALPHA * p + 1.0) * (1.0 - p))
    return a, a * ALPHA * p, -a * ALPHA * (1.0 - p)


def reference(x, p, seed):
    """torch's alpha_dropout, seeded without disturbing the global RNG. Timing baseline only:
    the output is judged by check()."""
    with torch.random.fork_rng(devices=[x.device] if x.device.type == "cuda" else []):
        torch.manual_seed(seed)
        return F.alpha_dropout(x, p, training=True)


def _kept(outputs, inputs) -> tuple[list[str], torch.Tensor | None, torch.Tensor | None]:
    """([problems], kept, observable): which elements were kept, where that can be seen."""
    x, p, _ = inputs
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None, None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != x.shape or y.dtype != x.dtype \
            or y.device != x.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected {tuple(x.shape)} {x.dtype} on {x.device}"], \
            None, None
    a, offset, dropped = coefficients(p)
    xd, yd = x.double(), y.double()
    kept_exact = a * xd + offset
    kept_value = kept_exact.to(x.dtype).double()
    drop_value = torch.tensor(dropped, dtype=torch.float64).to(x.dtype).double().item()
    finfo = torch.finfo(x.dtype)
    # bound relative to the terms, not the sum: a * x + c cancels near x = -ALPHA * p
    tol_k = _RTOL[x.dtype] * (a * xd.abs() + offset) + 2 * finfo.tiny * finfo.eps
    tol_d = _RTOL[x.dtype] * abs(dropped)
    kept = (yd - kept_value).abs() <= tol_k
    drop = (yd - drop_value).abs() <= tol_d
    bad = ~(kept | drop)  # NaN lands here too
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        return [f"{int(bad.sum())} of {y.numel()} elements are neither a * x + a * alpha * p nor "
                f"-a * alpha * (1 - p) (p={p}); e.g. flat index {i}: x="
                f"{float(xd.flatten()[i]):.6g}, out={float(yd.flatten()[i]):.6g}"], None, None
    # where the kept value is within both bounds of the dropped one (x near -ALPHA) the two look
    # the same: those positions are chosen by the inputs alone and left out
    observable = (kept_value - drop_value).abs() > tol_k + tol_d
    return [], kept & ~drop, observable


def check(outputs, inputs) -> list[str]:
    """Every element the kept or the dropped value of alpha dropout, then the keep/drop field
    judged as independent draws of probability 1 - p (stats.binary_field: overall and
    value-defined shares, equal input values, neighbours, rows, periodicity), at most
    CALL_ALPHA false failures a call."""
    problems, kept, observable = _kept(outputs, inputs)
    if kept is None or observable is None:
        return problems
    x, p, _ = inputs
    tests = stats.Tests(stats.BINARY_FIELD_TESTS)
    stats.binary_field(tests, "keep decisions", kept, 1.0 - p, observable, x)
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, kept_a, seen = _kept(first, inputs_first)
    _, kept_b, _ = _kept(second, inputs_second)
    if kept_a is None or kept_b is None or seen is None:
        return []
    tests = stats.Tests(1)
    keep = stats.two_bins(1.0 - inputs_first[1], kept_a.device)
    tests.add(stats.pair_test("keep decisions under two seeds", kept_a[seen].long(),
                              kept_b[seen].long(), keep, keep, tests.share()))
    return tests.problems
