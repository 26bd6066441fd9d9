import torch

from kgb.tasks import stats

K = 8  # bins of the range: the distribution and the pair tables
TESTS = 5


def reference(bounds, n, seed):
    """torch.randint per row from a generator seeded with `seed`. Timing baseline only: the
    output is judged by check()."""
    gen = torch.Generator(device=bounds.device)
    gen.manual_seed(seed)
    size = bounds[:, 1:] - bounds[:, :1]
    r = torch.randint(0, 2**62, (bounds.shape[0], n), generator=gen, device=bounds.device)
    return bounds[:, :1] + r % size


def _offsets(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    """([problems], v - low [M, N])."""
    bounds, n, _ = inputs
    m = bounds.shape[0]
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != (m, n) or y.dtype != torch.int64 \
            or y.device != bounds.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected ({m}, {n}) torch.int64 on {bounds.device}"], None
    low, high = bounds[:, :1], bounds[:, 1:]
    outside = (y < low) | (y >= high)
    if outside.any():
        r, c = (int(v) for v in outside.nonzero()[0])
        return [f"{int(outside.sum())} of {y.numel()} values are outside their row's [low, high)"
                f"; e.g. [{r}, {c}] = {int(y[r, c])} for [{int(low[r])}, {int(high[r])})"], None
    return [], y - low


def _law(bounds, n) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-element probabilities [M * N, K] of the K range bins floor(K v / R) and [M * N, 4] of
    v mod 4, exact for v uniform on 0 .. R - 1."""
    size = (bounds[:, 1] - bounds[:, 0])[:, None]
    j = torch.arange(K + 1, device=bounds.device)[None, :]
    edges = (j * size + K - 1) // K  # ceil(j R / K): the first v of bin j
    p_bins = (edges[:, 1:] - edges[:, :-1]).double() / size.double()
    c = torch.arange(4, device=bounds.device)[None, :]
    p_mod = ((size - c + 3) // 4).clamp(min=0).double() / size.double()
    return p_bins.repeat_interleave(n, dim=0), p_mod.repeat_interleave(n, dim=0)


def _bins(v, bounds):
    size = (bounds[:, 1] - bounds[:, 0])[:, None]
    return ((v * K) // size).flatten()


def check(outputs, inputs) -> list[str]:
    """Every value in [low, high), then v - low judged as independent uniform draws on
    0 .. R - 1: the eight range bins (exact probabilities), the residues mod 4 (the low bits: a
    float32 u times a range above 2**24 leaves them constant), bins of neighbours and rows, and
    every other lag (periodicity of the lower half), at most CALL_ALPHA false failures a call."""
    problems, v = _offsets(outputs, inputs)
    if v is None:
        return problems
    bounds, n, _ = inputs
    p_bins, p_mod = _law(bounds, n)
    b = _bins(v, bounds)
    tests = stats.Tests(TESTS)
    tests.add(stats.category_test("randint: range bins", b, p_bins, tests.share()))
    tests.add(stats.category_test("randint: residues mod 4", (v % 4).flatten(), p_mod,
                                  tests.share()))
    tests.add(stats.lag_test("randint: neighbours", b, p_bins, 1, tests.share()))
    tests.add(stats.lag_test("randint: rows", b, p_bins, n, tests.share()))
    tests.add(stats.periodicity_test("randint", b < K // 2, p_bins[:, :K // 2].sum(1),
                                     tests.share()))
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _offsets(first, inputs_first)
    _, b = _offsets(second, inputs_second)
    if a is None or b is None:
        return []
    bounds, n, _ = inputs_first
    p_bins, _ = _law(bounds, n)
    tests = stats.Tests(1)
    tests.add(stats.pair_test("randint under two seeds", _bins(a, bounds), _bins(b, bounds),
                              p_bins, p_bins, tests.share()))
    return tests.problems
