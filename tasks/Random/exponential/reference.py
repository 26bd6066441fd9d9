import torch

from kgb.tasks import stats


def reference(rate, n, seed):
    """Tensor.exponential_ from a generator seeded with `seed`, one rate per row. Timing
    baseline only: the output is judged by check()."""
    gen = torch.Generator(device=rate.device)
    gen.manual_seed(seed)
    out = torch.empty((rate.shape[0], n), device=rate.device, dtype=torch.float32)
    return out.exponential_(generator=gen) / rate[:, None]


def _draws(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    """([problems], u): the draws mapped to [0, 1] by their law's CDF, 1 - exp(-rate * x)."""
    rate, n, _ = inputs
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    m = rate.shape[0]
    if not isinstance(y, torch.Tensor) or y.shape != (m, n) or y.dtype != torch.float32 \
            or y.device != rate.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected ({m}, {n}) torch.float32 on {rate.device}"], None
    yd = y.double()
    bad = ~(torch.isfinite(yd) & (yd >= 0))  # NaN lands here too
    if bad.any():
        r, c = (int(v) for v in bad.nonzero()[0])
        return [f"{int(bad.sum())} of {y.numel()} values are negative or not finite; e.g. "
                f"[{r}, {c}] = {float(yd[r, c]):.6g}"], None
    return [], -torch.expm1(-rate[:, None].double() * yd)


def check(outputs, inputs) -> list[str]:
    """Every value finite and >= 0, then u = 1 - exp(-rate * out) judged as independent
    Uniform(0, 1) draws (kgb.tasks.stats.continuous_field), at most CALL_ALPHA false failures
    a call."""
    problems, u = _draws(outputs, inputs)
    if u is None:
        return problems
    tests = stats.Tests(stats.CONTINUOUS_FIELD_TESTS)
    stats.continuous_field(tests, "exponential draws", outputs[0], u)
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, u_a = _draws(first, inputs_first)
    _, u_b = _draws(second, inputs_second)
    if u_a is None or u_b is None:
        return []
    return stats.continuous_reseed("exponential draws", u_a, u_b)
