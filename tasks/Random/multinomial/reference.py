import torch

from kgb.tasks import stats


def reference(weights, s, seed):
    """torch.multinomial with replacement from a generator seeded with `seed`. Timing baseline
    only: the output is judged by check()."""
    gen = torch.Generator(device=weights.device)
    gen.manual_seed(seed)
    return torch.multinomial(weights, s, replacement=True, generator=gen)


def _samples(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    weights, s, _ = inputs
    m, v = weights.shape
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != (m, s) or y.dtype != torch.int64 \
            or y.device != weights.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected ({m}, {s}) torch.int64 on {weights.device}"], None
    outside = (y < 0) | (y >= v)
    if outside.any():
        return [f"{int(outside.sum())} of {y.numel()} samples are not in [0, {v})"], None
    zero = weights.gather(1, y) == 0
    if zero.any():
        r, c = (int(i) for i in zero.nonzero()[0])
        return [f"{int(zero.sum())} of {y.numel()} samples are categories of weight 0 (e.g. "
                f"row {r}: {int(y[r, c])})"], None
    return [], y


def check(outputs, inputs) -> list[str]:
    """Every sample a category of positive weight, then the samples judged as independent
    draws of each row's distribution (kgb.tasks.stats.categorical), at most CALL_ALPHA false
    failures a call."""
    problems, y = _samples(outputs, inputs)
    if y is None:
        return problems
    tests = stats.Tests(stats.CATEGORICAL_TESTS)
    stats.categorical(tests, "samples", y, inputs[0].double())
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _samples(first, inputs_first)
    _, b = _samples(second, inputs_second)
    if a is None or b is None:
        return []
    return stats.categorical_reseed("samples", a, b, inputs_first[0].double())
