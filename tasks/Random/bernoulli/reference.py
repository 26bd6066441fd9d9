import torch

from kgb.tasks import stats


def reference(probs, seed):
    """torch.bernoulli from a generator seeded with `seed`, as a bool mask. Timing baseline
    only: the output is judged by check()."""
    gen = torch.Generator(device=probs.device)
    gen.manual_seed(seed)
    return torch.bernoulli(probs, generator=gen).bool()


def _drawn(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    probs = inputs[0]
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != probs.shape or y.dtype != torch.bool \
            or y.device != probs.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected {tuple(probs.shape)} torch.bool on "
                f"{probs.device}"], None
    p = probs.double()
    impossible = (y & (p == 0)) | (~y & (p == 1))
    if impossible.any():
        return [f"{int(impossible.sum())} draws are impossible: True where the probability is 0 "
                "or False where it is 1"], None
    return [], y


def check(outputs, inputs) -> list[str]:
    """No impossible draw, then the mask judged as independent Bernoulli(probs) draws
    (kgb.tasks.stats.binary_field: overall and on value-defined subsets, equal probabilities at
    two positions, neighbours, rows, periodicity), at most CALL_ALPHA false failures a call."""
    problems, y = _drawn(outputs, inputs)
    if y is None:
        return problems
    probs = inputs[0]
    tests = stats.Tests(stats.BINARY_FIELD_TESTS)
    valid = torch.ones_like(y)
    stats.binary_field(tests, "Bernoulli draws", y, probs.double(), valid, probs)
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _drawn(first, inputs_first)
    _, b = _drawn(second, inputs_second)
    if a is None or b is None:
        return []
    tests = stats.Tests(1)
    p = stats.two_bins(inputs_first[0])
    tests.add(stats.pair_test("Bernoulli draws under two seeds", a.flatten().long(),
                              b.flatten().long(), p, p, tests.share()))
    return tests.problems
