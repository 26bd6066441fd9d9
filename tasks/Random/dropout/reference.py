import math

import torch
import torch.nn.functional as F

# Relative bound on a kept value against x / (1 - p) rounded once: just over 1 ulp for bfloat16,
# ~2 ulps for float16, ~8 for float32 (a kernel may multiply by 1 / (1 - p) instead of dividing,
# and the CPU interpreter truncates to bfloat16 instead of rounding to nearest).
_RTOL = {torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 1e-2}
_SIGMAS = 6.0  # binomial standard deviations allowed on every kept-share test
_NEGLIGIBLE = 1e-12  # a pattern an honest generator produces with this probability is a bug


def reference(x, p, seed):
    """torch's fused dropout, seeded without disturbing the global RNG. Timing baseline only: the
    output is judged by check(), never compared elementwise with this."""
    with torch.random.fork_rng(devices=[x.device] if x.device.type == "cuda" else []):
        torch.manual_seed(seed)
        return F.dropout(x, p, training=True)


def _share_problem(name: str, kept: torch.Tensor, n: int, keep_prob: float) -> str | None:
    if n == 0:
        return None
    k = int(kept.sum())
    expected = n * keep_prob
    sd = math.sqrt(n * keep_prob * (1 - keep_prob))
    if abs(k - expected) > _SIGMAS * sd + 1:
        return (f"{name}: kept {k} of {n} elements ({k / n:.4f}); expected {keep_prob:.4f} "
                f"(1 - p) within {_SIGMAS:g} standard deviations ({_SIGMAS * sd / n:.4f})")
    return None


def check(outputs, inputs) -> list[str]:
    x, p, seed = inputs
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"]
    y = outputs[0]
    if not isinstance(y, torch.Tensor):
        return [f"output is {type(y).__name__}, not a Tensor"]
    if y.shape != x.shape or y.dtype != x.dtype or y.device != x.device:
        return [f"output is {tuple(y.shape)} {y.dtype} on {y.device}; expected "
                f"{tuple(x.shape)} {x.dtype} on {x.device}"]
    problems = []
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
        problems.append(
            f"{int(bad.sum())} of {y.numel()} elements are neither 0 nor x / (1 - p); e.g. flat "
            f"index {i}: x={xf.flatten()[i].item():.6g}, out={yf.flatten()[i].item():.6g}, "
            f"kept value {kept_value.flatten()[i].item():.6g} (p={p})")
        return problems

    # Where x / (1 - p) rounds to 0 (x == 0 or underflow) keep and drop look the same: ignore.
    observable = kept_value != 0
    n = int(observable.sum())
    k = int((kept & observable).sum())
    problem = _share_problem("whole tensor", kept[observable], n, keep_prob)
    if problem:
        problems.append(problem)
    if n and k == n and keep_prob ** n < _NEGLIGIBLE:
        problems.append(f"every one of {n} elements was kept: nothing was dropped (p={p})")
    if n and k == 0 and p ** n < _NEGLIGIBLE:
        problems.append(f"every one of {n} elements was dropped (p={p})")

    # The decision must not depend on x: the kept share must hold on value-defined subsets too.
    ax = xf.abs()
    median = ax[observable].median() if n else 0.0
    subsets = {"x > 0": xf > 0, "x < 0": xf < 0, "|x| above its median": ax > median,
                "|x| at or below its median": ax <= median}
    for name, sel in subsets.items():
        sel = sel & observable
        problem = _share_problem(name, kept[sel], int(sel.sum()), keep_prob)
        if problem:
            problems.append(problem)

    # Decisions must differ across rows and across columns (a generator keyed on the column
    # or on the row alone repeats one pattern).
    if x.dim() == 2 and bool(observable.all()):
        M, N = x.shape
        repeat_rows = (p ** M + keep_prob ** M) ** N
        repeat_cols = (p ** N + keep_prob ** N) ** M
        if M >= 2 and repeat_rows < _NEGLIGIBLE and bool((kept == kept[:1]).all()):
            problems.append("every row has the same keep/drop pattern")
        if N >= 2 and repeat_cols < _NEGLIGIBLE and bool((kept == kept[:, :1]).all()):
            problems.append("every column has the same keep/drop pattern")
    return problems
