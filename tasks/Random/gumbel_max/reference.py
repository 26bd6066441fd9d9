import torch

from kgb.tasks import stats


def reference(logits, s, seed):
    """argmax(logits + Gumbel noise) with the noise from a generator seeded with `seed`, S times
    per row. Timing baseline only: the output is judged by check()."""
    gen = torch.Generator(device=logits.device)
    gen.manual_seed(seed)
    m, v = logits.shape
    u = torch.rand((m, s, v), generator=gen, device=logits.device)
    gumbel = -torch.log(-torch.log(u.clamp(min=1e-20)))
    return (logits[:, None, :].float() + gumbel).argmax(dim=2)


def baseline(logits, s, seed):
    """What a PyTorch sampler runs (vLLM's upcasts the logits to float32 before sampling):
    the same Gumbel-max in float32 (timing only). In bfloat16 the noise is 8 bits and vanishes
    beside logits of magnitude ~1e3 (the outlier mode): its argmax is no sample of the law."""
    gen = torch.Generator(device=logits.device)
    gen.manual_seed(seed)
    m, v = logits.shape
    u = torch.rand((m, s, v), generator=gen, device=logits.device)
    gumbel = -torch.log(-torch.log(u.clamp(min=torch.finfo(torch.float32).tiny)))
    return (logits[:, None, :].float() + gumbel).argmax(dim=2)


def _samples(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    logits, s, _ = inputs
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
    return [], y


def check(outputs, inputs) -> list[str]:
    """Every sample an unmasked token, then the samples judged as independent draws of
    softmax(logits) per row (kgb.tasks.stats.categorical), at most CALL_ALPHA false failures a
    call."""
    problems, y = _samples(outputs, inputs)
    if y is None:
        return problems
    tests = stats.Tests(stats.CATEGORICAL_TESTS)
    stats.categorical(tests, "samples", y, torch.softmax(inputs[0].double(), dim=1))
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _samples(first, inputs_first)
    _, b = _samples(second, inputs_second)
    if a is None or b is None:
        return []
    return stats.categorical_reseed("samples", a, b, torch.softmax(inputs_first[0].double(), 1))
