import torch

from kgb.tasks import stats


def _kept(logits, top_k):
    """Tokens whose logit is at least the row's k-th largest (ties with it kept, as vLLM's
    apply_top_k masks only logits below it), finite ones only."""
    v = logits.shape[1]
    kth = logits.topk(min(v, int(top_k.max())), dim=1).values
    kth = kth.gather(1, (top_k.clamp(1, v) - 1)[:, None].clamp(max=kth.shape[1] - 1))
    return (logits >= kth) & (logits > float("-inf"))


def reference(logits, temperature, top_k, s, seed):
    """vLLM's sampler path: logits / temperature, top-k mask (-inf below the k-th largest),
    softmax, then S multinomial draws per row from a generator seeded with `seed`. Timing
    baseline only: the output is judged by check()."""
    gen = torch.Generator(device=logits.device)
    gen.manual_seed(seed)
    scaled = logits.float() / temperature[:, None]
    scaled = scaled.masked_fill(~_kept(logits, top_k), float("-inf"))
    return torch.multinomial(torch.softmax(scaled, dim=1), s, replacement=True, generator=gen)


def baseline(logits, temperature, top_k, s, seed):
    """What vLLM's sampler runs: it casts the logits to float32 before the temperature (so does
    this task's contract; bfloat16 logits / T in the thousands lose the distribution)."""
    return reference(logits, temperature, top_k, s, seed)


def _probs(inputs) -> tuple[torch.Tensor, torch.Tensor]:
    """(kept [M, V], the sampling law [M, V] in float64: softmax(logits / T) over the kept)."""
    logits, temperature, top_k, _, _ = inputs
    kept = _kept(logits, top_k)
    scaled = logits.double() / temperature.double()[:, None]
    return kept, torch.softmax(scaled.masked_fill(~kept, float("-inf")), dim=1)


def _samples(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    logits, _, _, s, _ = inputs
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
    kept, _ = _probs(inputs)
    dropped = ~kept.gather(1, y)
    if dropped.any():
        r, c = (int(i) for i in dropped.nonzero()[0])
        return [f"{int(dropped.sum())} of {y.numel()} samples are outside their row's top-k "
                f"(or masked) tokens (e.g. row {r}: token {int(y[r, c])}, k = "
                f"{int(inputs[2][r])})"], None
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
    """Every sample one of its row's top-k tokens (exactly), then the samples judged as
    independent draws of softmax(logits / T) renormalized over the top-k
    (kgb.tasks.stats.categorical; the distribution also on the rows below and above T = 1),
    at most CALL_ALPHA false failures a call."""
    problems, y = _samples(outputs, inputs)
    if y is None:
        return problems
    tests = stats.Tests(stats.CATEGORICAL_TESTS + BY_TEMPERATURE_TESTS)
    law = _probs(inputs)[1]
    stats.categorical(tests, "samples", y, law)
    _by_temperature(tests, y, law, inputs[1])
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _samples(first, inputs_first)
    _, b = _samples(second, inputs_second)
    if a is None or b is None:
        return []
    return stats.categorical_reseed("samples", a, b, _probs(inputs_first)[1])
