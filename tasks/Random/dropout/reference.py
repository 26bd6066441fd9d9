import torch
import torch.nn.functional as F

from kgb.tasks import stats

# Relative bound on a kept value against x / (1 - p) rounded once: just over 1 ulp for bfloat16,
# ~2 ulps for float16, ~8 for float32 (a kernel may multiply by 1 / (1 - p) instead of dividing,
# and the CPU interpreter truncates to bfloat16 instead of rounding to nearest).
_RTOL = {torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 1e-2}


def reference(x, p, seed):
    """torch's fused dropout, seeded without disturbing the global RNG. Timing baseline only: the
    output is judged by check(), never compared elementwise with this."""
    with torch.random.fork_rng(devices=[x.device] if x.device.type == "cuda" else []):
        torch.manual_seed(seed)
        return F.dropout(x, p, training=True)


def _kept(outputs, inputs) -> tuple[list[str], torch.Tensor | None, torch.Tensor | None]:
    """([problems], kept, observable): which elements were kept, where that can be seen."""
    x, p, seed = inputs
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None, None
    y = outputs[0]
    if not isinstance(y, torch.Tensor):
        return [f"output is {type(y).__name__}, not a Tensor"], None, None
    if y.shape != x.shape or y.dtype != x.dtype or y.device != x.device:
        return [f"output is {tuple(y.shape)} {y.dtype} on {y.device}; expected "
                f"{tuple(x.shape)} {x.dtype} on {x.device}"], None, None
    xf, yf = x.float(), y.float()
    keep_prob = 1.0 - p
    kept_value = (xf / keep_prob).to(x.dtype).float()  # x / (1 - p) rounded once
    finfo = torch.finfo(x.dtype)
    subnormal_ulp = finfo.tiny * finfo.eps
    tol = _RTOL[x.dtype] * kept_value.abs() + 2 * subnormal_ulp
    zero = yf == 0
    kept = ((yf - kept_value).abs() <= tol) & ~zero
    bad = ~(zero | kept)  # NaN outputs land here too
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        return [f"{int(bad.sum())} of {y.numel()} elements are neither 0 nor x / (1 - p); e.g. "
                f"flat index {i}: x={xf.flatten()[i].item():.6g}, out="
                f"{yf.flatten()[i].item():.6g}, kept value {kept_value.flatten()[i].item():.6g} "
                f"(p={p})"], None, None
    # Where x / (1 - p) rounds to 0 (x == 0 or underflow) keep and drop look the same: ignore.
    return [], kept, kept_value != 0


def check(outputs, inputs) -> list[str]:
    """Every element 0 or x / (1 - p), then the keep/drop field judged as independent draws of
    probability 1 - p (kgb.tasks.stats.binary_field: overall and value-defined shares, equal
    input values, neighbours, rows, periodicity), at most CALL_ALPHA false failures a call."""
    problems, kept, observable = _kept(outputs, inputs)
    if kept is None or observable is None:
        return problems
    x, p, _ = inputs
    tests = stats.Tests(stats.BINARY_FIELD_TESTS)
    stats.binary_field(tests, "keep decisions", kept, 1.0 - p, observable, x)
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    """Another seed, the same x: the two keep/drop fields must be independent of each other
    (not the same field shifted, flipped or re-thresholded), at most CALL_ALPHA false failures."""
    _, kept_a, seen = _kept(first, inputs_first)
    _, kept_b, _ = _kept(second, inputs_second)
    if kept_a is None or kept_b is None or seen is None:
        return []  # check() names what is wrong with each call
    tests = stats.Tests(1)
    keep = stats.two_bins(1.0 - inputs_first[1], kept_a.device)
    tests.add(stats.pair_test("keep decisions under two seeds", kept_a[seen].long(),
                              kept_b[seen].long(), keep, keep, tests.share()))
    return tests.problems
