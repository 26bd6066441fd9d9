import torch
import torch.nn.functional as F

from kgb.tasks import stats

# Relative bound on a kept value against x / (1 - p) rounded once (as random.dropout's)
_RTOL = {torch.float32: 1e-6, torch.float16: 2e-3, torch.bfloat16: 1e-2}


def reference(x, p, seed):
    """torch's channel dropout (dropout1d on [B, C, L]), seeded without disturbing the global
    RNG. Timing baseline only: the output is judged by check()."""
    with torch.random.fork_rng(devices=[x.device] if x.device.type == "cuda" else []):
        torch.manual_seed(seed)
        return F.dropout1d(x, p, training=True)


def _channels(outputs, inputs) -> tuple[list[str], torch.Tensor | None, torch.Tensor | None]:
    """([problems], kept [B, C], observable [B, C]): each channel's decision, where it shows."""
    x, p, _ = inputs
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None, None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != x.shape or y.dtype != x.dtype \
            or y.device != x.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected {tuple(x.shape)} {x.dtype} on {x.device}"], \
            None, None
    xf, yf = x.float(), y.float()
    kept_value = (xf / (1.0 - p)).to(x.dtype).float()
    finfo = torch.finfo(x.dtype)
    tol = _RTOL[x.dtype] * kept_value.abs() + 2 * finfo.tiny * finfo.eps
    zero = yf == 0
    kept = ((yf - kept_value).abs() <= tol) & ~zero
    if (~(zero | kept)).any():
        return [f"{int((~(zero | kept)).sum())} of {y.numel()} elements are neither 0 nor "
                f"x / (1 - p) (p={p})"], None, None
    seen = kept_value != 0  # where keep and drop differ
    kept_any = (kept & seen).any(dim=-1)
    dropped_any = (zero & seen).any(dim=-1)
    split = kept_any & dropped_any
    if split.any():
        b, c = (int(v) for v in split.nonzero()[0])
        return [f"{int(split.sum())} channels are partly kept and partly dropped; e.g. "
                f"[{b}, {c}]: a channel is kept or dropped whole"], None, None
    return [], kept_any, seen.any(dim=-1)


def check(outputs, inputs) -> list[str]:
    """Every element 0 or x / (1 - p), every channel kept or dropped whole, then the [B, C]
    field of channel decisions judged as independent draws of probability 1 - p
    (stats.binary_field: overall and on value-defined subsets of the channel's first value,
    equal channels, neighbouring channels, the same channel of neighbouring samples,
    periodicity), at most CALL_ALPHA false failures a call."""
    problems, kept, seen = _channels(outputs, inputs)
    if kept is None or seen is None:
        return problems
    x, p, _ = inputs
    tests = stats.Tests(stats.BINARY_FIELD_TESTS)
    stats.binary_field(tests, "channel keep decisions", kept, 1.0 - p, seen, x[:, :, 0])
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a, seen = _channels(first, inputs_first)
    _, b, _ = _channels(second, inputs_second)
    if a is None or b is None or seen is None:
        return []
    tests = stats.Tests(1)
    keep = stats.two_bins(1.0 - inputs_first[1], a.device)
    tests.add(stats.pair_test("channel keep decisions under two seeds", a[seen].long(),
                              b[seen].long(), keep, keep, tests.share()))
    return tests.problems
