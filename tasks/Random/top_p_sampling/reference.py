import torch

from kgb.tasks import stats

_SUPPORT_SLACK = 1e-3  # rounding room for the nucleus; inputs keep every sum 1e-2 from top_p


def reference(logits, temperature, top_p, s, seed):
    """vLLM's sampler path: logits cast to float32 / temperature, softmax, the top-p mask of
    apply_top_p (sort ascending, drop tokens whose cumulative probability is <= 1 - p, keep the
    most probable token), then S multinomial draws per row from a generator seeded with
    `seed`. Timing baseline only: the output is judged by check()."""
    gen = torch.Generator(device=logits.device)
    gen.manual_seed(seed)
    probs = torch.softmax(logits.float() / temperature[:, None], dim=1)
    p_sort, idx = probs.sort(dim=1, descending=False)
    drop = p_sort.cumsum(1) <= 1 - top_p[:, None]
    drop[:, -1] = False
    keep = torch.empty_like(drop).scatter_(1, idx, ~drop)
    probs = probs.masked_fill(~keep, 0.0)
    return torch.multinomial(probs, s, replacement=True, generator=gen)


def baseline(logits, temperature, top_p, s, seed):
    """What vLLM's sampler runs: it casts the logits to float32 before the temperature."""
    return reference(logits, temperature, top_p, s, seed)


def _mass_above(probs: torch.Tensor) -> torch.Tensor:
    """[M, V] float64: the total probability of the tokens strictly more probable than each."""
    asc = probs.sort(dim=1).values
    above = asc.sum(1, keepdim=True) - asc.cumsum(1)  # the mass after each sorted position
    last = torch.searchsorted(asc.contiguous(), probs.contiguous(), right=True) - 1
    return above.gather(1, last)


def _law(inputs) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(probs, mass_above, the sampling law over the nucleus), all [M, V] float64."""
    logits, temperature, top_p, _, _ = inputs
    probs = torch.softmax(logits.double() / temperature.double()[:, None], dim=1)
    above = _mass_above(probs)
    nucleus = (above < top_p.double()[:, None]) & (probs > 0)
    law = probs.masked_fill(~nucleus, 0.0)
    return probs, above, law / law.sum(1, keepdim=True)


def _samples(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    logits, _, top_p, s, _ = inputs
    m, v = logits.shape
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != (m, s) or y.dtype != torch.int64 \
            or y.device != logits.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected ({m}, {s}) torch.int64 on {logits.device}"], None
    outside = (y < 0) | (y >= v)
    if outside.any():
        return [f"{int(outside.sum())} of {y.numel()} samples are not in [0, {v})"], None
    masked = logits.gather(1, y) == float("-inf")
    if masked.any():
        return [f"{int(masked.sum())} of {y.numel()} samples are masked tokens (logit -inf)"], None
    _, above, _ = _law(inputs)
    out = above.gather(1, y) >= top_p.double()[:, None] + _SUPPORT_SLACK
    if out.any():
        r, c = (int(i) for i in out.nonzero()[0])
        return [f"{int(out.sum())} of {y.numel()} samples are outside their row's top-p "
                f"nucleus (e.g. row {r}: token {int(y[r, c])}, which has "
                f"{float(above[r, int(y[r, c])]):.4f} of probability above it; top_p = "
                f"{float(top_p[r]):.4f})"], None
    return [], y


BY_TEMPERATURE_TESTS = 5


def _by_temperature(tests: stats.Tests, y: torch.Tensor, law: torch.Tensor,
                    temperature: torch.Tensor) -> None:
    """On the rows with T < 1 and on those with T >= 1 apart (a kernel that ignores the
    temperature is too flat on the first and too sharp on the second, and pooled tables let
    the two cancel): the distribution of the CDF bins, and the share of samples that are their
    row's most probable token (a sum of independent 0/1 draws of known means); and over all
    rows, the share of samples that are the least probable kept tokens (the cut's own tokens:
    a mask that stops one token short, or drops the ties of the cut, never draws them)."""
    b, p = stats.categorical_bins(y, law)
    s = y.shape[1]
    top = law.argmax(1, keepdim=True)
    is_top = (y == top).double()
    p_top = law.gather(1, top).expand_as(is_top)
    for label, rows in (("rows with T < 1", temperature < 1), ("rows with T >= 1",
                                                               temperature >= 1)):
        per_sample = p[rows].repeat_interleave(s, dim=0)
        tests.add(stats.category_test(f"samples: distribution on {label}", b[rows].flatten(),
                                      per_sample, tests.share()))
        tests.add(stats.sum_test(f"samples: the most probable token, on {label}",
                                 float(is_top[rows].sum()), int(is_top[rows].numel()),
                                 float(p_top[rows].sum()), tests.share()))
    low = law.masked_fill(law <= 0, 2.0).min(1, keepdim=True).values
    is_low = (law.gather(1, y) == low).double()
    p_low = (law * (law == low)).sum(1, keepdim=True).expand_as(is_low)
    tests.add(stats.sum_test("samples: the least probable kept tokens", float(is_low.sum()),
                             int(is_low.numel()), float(p_low.sum()), tests.share()))


def check(outputs, inputs) -> list[str]:
    """Every sample an unmasked token of its row's nucleus (the tokens with less than top_p of
    probability strictly above them), then the samples judged as independent draws of
    softmax(logits / T) renormalized over the nucleus (kgb.tasks.stats.categorical), at most
    CALL_ALPHA false failures a call."""
    problems, y = _samples(outputs, inputs)
    if y is None:
        return problems
    tests = stats.Tests(stats.CATEGORICAL_TESTS + BY_TEMPERATURE_TESTS)
    law = _law(inputs)[2]
    stats.categorical(tests, "samples", y, law)
    _by_temperature(tests, y, law, inputs[1])
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _samples(first, inputs_first)
    _, b = _samples(second, inputs_second)
    if a is None or b is None:
        return []
    return stats.categorical_reseed("samples", a, b, _law(inputs_first)[2])
