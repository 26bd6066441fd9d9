import torch

from kgb.tasks import stats

K = 8  # quantile bins
TESTS = 4


def reference(p, n, seed):
    """Inversion as aten's geometric_ does it (which takes one p, below 1), per row, from a
    generator seeded with `seed`. Timing baseline only: the output is judged by check()."""
    gen = torch.Generator(device=p.device)
    gen.manual_seed(seed)
    u = 1.0 - torch.rand((p.shape[0], n), generator=gen, device=p.device)  # (0, 1]
    k = torch.ceil(torch.log(u) / torch.log1p(-p)[:, None])
    return k.clamp(min=1).to(torch.int64)


def _draws(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    p, n, _ = inputs
    m = p.shape[0]
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != (m, n) or y.dtype != torch.int64 \
            or y.device != p.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected ({m}, {n}) torch.int64 on {p.device}"], None
    bad = (y < 1) | ((p[:, None] == 1) & (y != 1))
    if bad.any():
        r, c = (int(v) for v in bad.nonzero()[0])
        return [f"{int(bad.sum())} of {y.numel()} draws are impossible (below 1, or not 1 where "
                f"p = 1); e.g. [{r}, {c}] = {int(y[r, c])} with p = {float(p[r]):.6g}"], None
    return [], y


def _quantile_law(p, n) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row the thresholds c_j = the least k >= 1 with F(k) >= j / K (j = 1 .. K - 1), F(k) =
    1 - (1 - p)**k, and the exact bin probabilities [M * N, K] of b(k) = #{j : c_j < k}."""
    q = p.double()[:, None]
    j = torch.arange(1, K, device=p.device, dtype=torch.float64)[None, :]
    log1mp = torch.log1p(-q)
    with torch.no_grad():
        c = torch.where(q >= 1, torch.ones_like(j),
                        torch.ceil(torch.log1p(-j / K) / log1mp.clamp(max=-1e-300)))
    c = c.clamp(min=1)
    cdf = torch.where(q >= 1, torch.ones_like(c), -torch.expm1(c * log1mp))
    zero = torch.zeros_like(cdf[:, :1])
    cdf = torch.cat([zero, cdf, torch.ones_like(zero)], dim=1)
    probs = (cdf[:, 1:] - cdf[:, :-1]).clamp(min=0)
    return c, probs.repeat_interleave(n, dim=0)


def _bins(y, c):
    return (c[:, None, :] < y[:, :, None].double()).sum(-1).flatten()


def check(outputs, inputs) -> list[str]:
    """Every draw an integer >= 1 (1 where p = 1), then the draws judged as independent
    geometric(p) draws: eight quantile bins of each row's law (exact probabilities, shared
    thresholds where the law is too steep), bins of neighbours and rows, every other lag
    (periodicity of the lower half), at most CALL_ALPHA false failures a call."""
    problems, y = _draws(outputs, inputs)
    if y is None:
        return problems
    p, n, _ = inputs
    c, probs = _quantile_law(p, n)
    b = _bins(y, c)
    tests = stats.Tests(TESTS)
    tests.add(stats.category_test("geometric: quantile bins", b, probs, tests.share()))
    tests.add(stats.lag_test("geometric: neighbours", b, probs, 1, tests.share()))
    tests.add(stats.lag_test("geometric: rows", b, probs, n, tests.share()))
    tests.add(stats.periodicity_test("geometric", b < K // 2, probs[:, :K // 2].sum(1),
                                     tests.share()))
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _draws(first, inputs_first)
    _, b = _draws(second, inputs_second)
    if a is None or b is None:
        return []
    p, n, _ = inputs_first
    c, probs = _quantile_law(p, n)
    tests = stats.Tests(1)
    tests.add(stats.pair_test("geometric draws under two seeds", _bins(a, c), _bins(b, c),
                              probs, probs, tests.share()))
    return tests.problems
