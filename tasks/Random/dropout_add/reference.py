import torch
import torch.nn.functional as F

from kgb.tasks import stats

# Relative bound on an output against its exact value, over |residual| + |x / (1 - p)|: float32
# rounding of the sum and of x * (1 / (1 - p)), and the interpreter's bfloat16 truncation.
_RTOL = {torch.float32: 2e-6, torch.float16: 2e-3, torch.bfloat16: 1.6e-2}


def reference(x, residual, p, seed):
    """residual + dropout(x): torch's fused dropout seeded without disturbing the global RNG.
    Timing baseline only: the output is judged by check()."""
    with torch.random.fork_rng(devices=[x.device] if x.device.type == "cuda" else []):
        torch.manual_seed(seed)
        return residual + F.dropout(x, p, training=True)


def _kept(outputs, inputs) -> tuple[list[str], torch.Tensor | None, torch.Tensor | None]:
    """([problems], kept, observable): where x was kept, and where kept and dropped differ."""
    x, residual, p, _ = inputs
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None, None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != x.shape or y.dtype != x.dtype \
            or y.device != x.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected {tuple(x.shape)} {x.dtype} on {x.device}"], None, None
    scaled = x.double() / (1.0 - p)
    r = residual.double()
    kept_value, dropped_value = r + scaled, r
    finfo = torch.finfo(x.dtype)
    tol = _RTOL[x.dtype] * (r.abs() + scaled.abs()) + 2 * finfo.tiny * finfo.eps
    yd = y.double()
    kept = (yd - kept_value).abs() <= tol
    dropped = (yd - dropped_value).abs() <= tol
    bad = ~(kept | dropped)  # NaN lands here too
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        return [f"{int(bad.sum())} of {y.numel()} elements are neither residual nor residual + "
                f"x / (1 - p); e.g. flat index {i}: out={float(yd.flatten()[i]):.6g}, residual="
                f"{float(r.flatten()[i]):.6g}, x / (1 - p)={float(scaled.flatten()[i]):.6g}"], \
            None, None
    return [], kept, kept ^ dropped  # observable: exactly one of the two fits


def check(outputs, inputs) -> list[str]:
    """Every element residual or residual + x / (1 - p), then the keep/drop field judged as
    independent draws of probability 1 - p (kgb.tasks.stats.binary_field), at most CALL_ALPHA
    false failures a call."""
    problems, kept, observable = _kept(outputs, inputs)
    if kept is None or observable is None:
        return problems
    x, _, p, _ = inputs
    tests = stats.Tests(stats.BINARY_FIELD_TESTS)
    stats.binary_field(tests, "keep decisions", kept, 1.0 - p, observable, x)
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, kept_a, seen = _kept(first, inputs_first)
    _, kept_b, _ = _kept(second, inputs_second)
    if kept_a is None or kept_b is None or seen is None:
        return []
    tests = stats.Tests(1)
    keep = stats.two_bins(1.0 - inputs_first[2], kept_a.device)
    tests.add(stats.pair_test("keep decisions under two seeds", kept_a[seen].long(),
                              kept_b[seen].long(), keep, keep, tests.share()))
    return tests.problems
