import math

import torch

from kgb.tasks import stats

TAIL = 3.0  # |z| beyond this: probability erfc(3 / sqrt(2)) = 0.0026998 for a true normal


def reference(params, n, seed):
    """torch.randn from a generator seeded with `seed`, scaled per row. Timing baseline only:
    the output is judged by check()."""
    gen = torch.Generator(device=params.device)
    gen.manual_seed(seed)
    z = torch.randn((params.shape[0], n), generator=gen, device=params.device)
    return params[:, :1] + params[:, 1:] * z


def _standard(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    """([problems], z): the draws standardized by each row's mean and std (float64)."""
    params, n, _ = inputs
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    m = params.shape[0]
    if not isinstance(y, torch.Tensor) or y.shape != (m, n) or y.dtype != torch.float32 \
            or y.device != params.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected ({m}, {n}) torch.float32 on {params.device}"], None
    bad = ~torch.isfinite(y)
    if bad.any():
        return [f"{int(bad.sum())} of {y.numel()} values are not finite"], None
    mean, std = params[:, :1].double(), params[:, 1:].double()
    return [], (y.double() - mean) / std


def check(outputs, inputs) -> list[str]:
    """z = (out - mean) / std judged as independent standard normal draws: Phi(z) through
    kgb.tasks.stats.continuous_field, and the share beyond 3 standard deviations (a sum of
    a few uniforms, a clipped or low-precision Box-Muller has too few), at most CALL_ALPHA false
    failures a call."""
    problems, z = _standard(outputs, inputs)
    if z is None:
        return problems
    tests = stats.Tests(stats.CONTINUOUS_FIELD_TESTS + 1)
    u = 0.5 * torch.special.erfc(-z / math.sqrt(2))
    stats.continuous_field(tests, "normal draws", outputs[0], u)
    tail = (z.abs() > TAIL)
    tests.add(stats.sum_test(f"normal draws beyond {TAIL:g} standard deviations",
                             float(tail.sum()), tail.numel(),
                             tail.numel() * math.erfc(TAIL / math.sqrt(2)), tests.share()))
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, z_a = _standard(first, inputs_first)
    _, z_b = _standard(second, inputs_second)
    if z_a is None or z_b is None:
        return []
    phi = [0.5 * torch.special.erfc(-z / math.sqrt(2)) for z in (z_a, z_b)]
    return stats.continuous_reseed("normal draws", phi[0], phi[1])
