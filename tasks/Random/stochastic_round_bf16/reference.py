import torch

from kgb.tasks import stats


def _neighbours(x):
    """(lo, hi, p_up): x's bfloat16 truncation toward zero, the next bfloat16 away from zero,
    and the probability of rounding to hi, (low 16 bits of x) / 2**16."""
    bits = x.contiguous().view(torch.int32)
    low = bits & 0xFFFF
    lo = (bits - low).view(torch.float32)
    hi = (bits - low + 0x10000).view(torch.float32)
    return lo, hi, low.double() / 65536.0


def reference(x, seed):
    """torchao's bf16 stochastic rounding (a random 16-bit integer added to the float32 bits,
    then truncated), from a generator seeded with `seed`. Timing baseline only: the output is
    judged by check()."""
    gen = torch.Generator(device=x.device)
    gen.manual_seed(seed)
    r = torch.randint(0, 1 << 16, x.shape, generator=gen, device=x.device, dtype=torch.int32)
    bits = (x.contiguous().view(torch.int32) + r) & -65536
    return bits.view(torch.float32).to(torch.bfloat16)


def _rounded_up(outputs, inputs) -> tuple[list[str], torch.Tensor | None, torch.Tensor | None]:
    x = inputs[0]
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None, None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != x.shape or y.dtype != torch.bfloat16 \
            or y.device != x.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected {tuple(x.shape)} torch.bfloat16 on {x.device}"], \
            None, None
    lo, hi, p_up = _neighbours(x)
    yf = y.float()
    up = yf == hi
    exact = p_up == 0
    bad = ~((yf == lo) | (up & ~exact))  # exact inputs must come back unchanged; NaN lands here
    if bad.any():
        i = int(bad.flatten().nonzero()[0])
        return [f"{int(bad.sum())} of {y.numel()} outputs are neither of the two bfloat16 values "
                f"around x (or changed an x exact in bfloat16); e.g. flat index {i}: x="
                f"{float(x.flatten()[i]):.9g}, out={float(yf.flatten()[i]):.9g}"], None, None
    return [], up, p_up


def check(outputs, inputs) -> list[str]:
    """Every output one of the two bfloat16 neighbours of x (x itself when exact), then the
    round-up field judged as independent draws of probability f = (x - lo) / (hi - lo)
    (stats.binary_field: the number rounded up overall, on each sign and on f above and below
    its median against the sum of the probabilities — the unbiasedness, E[out] = x —, equal
    inputs, neighbours, rows, periodicity), at most CALL_ALPHA false failures a call."""
    problems, up, p_up = _rounded_up(outputs, inputs)
    if up is None or p_up is None:
        return problems
    x = inputs[0]
    f = p_up.reshape(x.shape)
    # the value subsets: sign(x) splits by sign, |sign(x) * f| by the probability itself, where
    # round-to-nearest (or a biased rounding) shows at once: it never rounds a small f up
    tests = stats.Tests(stats.BINARY_FIELD_TESTS)
    stats.binary_field(tests, "round-up decisions", up, f, f > 0, torch.sign(x.double()) * f)
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a, p_up = _rounded_up(first, inputs_first)
    _, b, _ = _rounded_up(second, inputs_second)
    if a is None or b is None or p_up is None:
        return []
    tests = stats.Tests(1)
    seen = (p_up > 0).flatten()
    p = stats.two_bins(p_up.flatten()[seen])
    tests.add(stats.pair_test("round-up decisions under two seeds", a.flatten()[seen].long(),
                              b.flatten()[seen].long(), p, p, tests.share()))
    return tests.problems
