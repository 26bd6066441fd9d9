import torch

from kgb.tasks import stats


def reference(bounds, n, seed):
    """torch.rand from a generator seeded with `seed`, scaled to each row's range. Timing
    baseline only: the output is judged by check()."""
    gen = torch.Generator(device=bounds.device)
    gen.manual_seed(seed)
    u = torch.rand((bounds.shape[0], n), generator=gen, device=bounds.device)
    low, high = bounds[:, :1], bounds[:, 1:]
    return low + (high - low) * u


def _draws(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    """([problems], u): the draws mapped back to [0, 1] through each row's range."""
    bounds, n, _ = inputs
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    m = bounds.shape[0]
    if not isinstance(y, torch.Tensor) or y.shape != (m, n) or y.dtype != torch.float32 \
            or y.device != bounds.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected ({m}, {n}) torch.float32 on {bounds.device}"], None
    low, high = bounds[:, :1].double(), bounds[:, 1:].double()
    yd = y.double()
    outside = ~((yd >= low) & (yd <= high))  # NaN lands here too
    if outside.any():
        r, c = (int(v) for v in outside.nonzero()[0])
        return [f"{int(outside.sum())} of {y.numel()} values are outside their row's [low, high]"
                f"; e.g. [{r}, {c}] = {float(yd[r, c]):.6g} for [{float(low[r]):.6g}, "
                f"{float(high[r]):.6g}]"], None
    return [], ((yd - low) / (high - low)).clamp(0, 1)


def check(outputs, inputs) -> list[str]:
    """Every value inside its row's range, then u = (out - low) / (high - low) judged as
    independent Uniform(0, 1) draws (kgb.tasks.stats.continuous_field), at most CALL_ALPHA
    false failures a call."""
    problems, u = _draws(outputs, inputs)
    if u is None:
        return problems
    tests = stats.Tests(stats.CONTINUOUS_FIELD_TESTS)
    stats.continuous_field(tests, "uniform draws", outputs[0], u)
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, u_a = _draws(first, inputs_first)
    _, u_b = _draws(second, inputs_second)
    if u_a is None or u_b is None:
        return []
    return stats.continuous_reseed("uniform draws", u_a, u_b)
