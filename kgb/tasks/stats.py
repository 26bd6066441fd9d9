"""Statistical tests for the Random tasks' `check()` functions (trusted side only).

Every test here has a false-failure bound that holds for any sample size, not an asymptotic one:

- `sum_test`: a sum of independent [0, 1]-valued variables with known total mean (a kept share,
  a cell count of a pair table, a Poisson-binomial count): Hoeffding's (1963, Thm 1) bound
  P(mean - mu >= t) <= exp(-n KL(mu + t || mu)), on each side, at alpha / 2 a side;
- `dkw_test`: a sample's probability-integral transform against Uniform(0, 1): the
  Dvoretzky-Kiefer-Wolfowitz inequality with Massart's constant,
  P(sup |F_n - F| > eps) <= 2 exp(-2 n eps^2);
- pair tables (`pair_test`) over *disjoint* pairs only, so the pairs are independent under the
  null hypothesis and every cell is a `sum_test`, each at alpha / (cells);
- `periodicity_test`: the lags with the largest autocorrelation are tested as pair tables at
  alpha / (every lag there is), a union bound over all lags, whichever ones the data point at.

A `Tests` object hands each test its share of one call's budget (CALL_ALPHA, the false-failure
rate of one judged call), so a check's false-failure rate is at most CALL_ALPHA by the union
bound, whatever its tests' dependence. docs/tasks.md gives the per-job arithmetic."""

from __future__ import annotations

import math

import torch

CALL_ALPHA = 1e-9  # false-failure bound of one judged call of a Random task
PERIODICITY_WINDOW = 1 << 22  # elements the long-lag search reads (FFT of twice this)
PERIODICITY_CANDIDATES = 4  # lags tested among those the autocorrelation points at


class Tests:
    """One call's budget: `count` tests at CALL_ALPHA / count each. Spending more than declared
    is a bug in the check (its stated false-failure rate would be wrong), so it raises."""

    def __init__(self, count: int, alpha: float = CALL_ALPHA) -> None:
        self.count, self.alpha, self.used = count, alpha, 0
        self.problems: list[str] = []

    def share(self) -> float:
        self.used += 1
        if self.used > self.count:
            raise RuntimeError(f"check ran {self.used} tests, declared {self.count}")
        return self.alpha / self.count

    def add(self, problem: str | None) -> None:
        if problem:
            self.problems.append(problem)


def kl(q: float, p: float) -> float:
    """KL divergence between Bernoulli(q) and Bernoulli(p), in nats (inf where impossible)."""

    def term(a: float, b: float) -> float:
        if a <= 0.0:
            return 0.0
        return math.inf if b <= 0.0 else a * math.log(a / b)

    return term(q, p) + term(1.0 - q, 1.0 - p)


def sum_tail(total: float, n: int, mean: float) -> float:
    """Hoeffding's bound on the probability of a sum of n independent [0, 1] variables with
    expected sum `mean` landing at least as far from it as `total` (on that side)."""
    if n <= 0:
        return 1.0
    q, p = min(max(total / n, 0.0), 1.0), min(max(mean / n, 0.0), 1.0)
    if abs(q - p) <= 1e-12:
        return 1.0
    return math.exp(-n * kl(q, p))


def sum_test(name: str, total: float, n: int, mean: float, alpha: float) -> str | None:
    """Two-sided: the sum of n independent [0, 1] variables is `total`, expected `mean`."""
    bound = sum_tail(total, n, mean)
    if bound <= alpha / 2:
        return (f"{name}: {total:.6g} of {n} where {mean:.6g} was expected "
                f"(probability <= {bound:.1e} for an honest generator)")
    return None


def upper_test(name: str, total: float, n: int, rate: float, alpha: float) -> str | None:
    """One-sided: a count of n independent events, each of probability at most `rate`."""
    if total <= n * rate:
        return None
    bound = sum_tail(total, n, n * rate)
    if bound <= alpha:
        return (f"{name}: {int(total)} of {n} (expected at most {rate:.3g} of them; "
                f"probability <= {bound:.1e} for an honest generator)")
    return None


def dkw_test(name: str, u: torch.Tensor, alpha: float, slack: float = 1e-6) -> str | None:
    """`u` holds F(x) for a sample x of the claimed continuous distribution F: it must look
    Uniform(0, 1). `slack` absorbs the float32 rounding of the values (F moves by less)."""
    n = u.numel()
    if n == 0:
        return None
    s = u.detach().double().flatten().sort().values
    i = torch.arange(1, n + 1, dtype=torch.float64, device=s.device)
    gap = max(float((i / n - s).max()), float((s - (i - 1) / n).max()))
    eps = math.sqrt(math.log(2 / alpha) / (2 * n)) + slack
    if gap > eps:
        return (f"{name}: the distribution is off by {gap:.4f} at its worst point "
                f"(Kolmogorov-Smirnov; an honest generator stays within {eps:.4f})")
    return None


def bins(u: torch.Tensor, k: int) -> torch.Tensor:
    """The bin (0 .. k-1) of values in [0, 1]."""
    return (u.detach().double() * k).floor().clamp(0, k - 1).long().flatten()


def disjoint_pairs(n: int, lag: int, device: torch.device | str = "cpu"
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """Index pairs (i, i + lag) of a length-n sequence, no index in two pairs: i runs over the
    first half of every block of 2 * lag positions."""
    i = torch.arange(n, device=device)
    i = i[((i // lag) % 2 == 0) & (i + lag < n)]
    return i, i + lag


def pair_test(name: str, a: torch.Tensor, b: torch.Tensor, pa: torch.Tensor, pb: torch.Tensor,
              alpha: float) -> str | None:
    """Pairs (a[i], b[i]) of bins, independent pairs, a[i] in bin j with probability pa[i, j]
    (or pa[j] for all i): the k x k table of pair counts, every cell a sum test at
    alpha / k^2. Catches any dependence between the two members of a pair that shows in bins."""
    m = a.numel()
    if m == 0:
        return None
    k = pa.shape[-1]
    pa = pa.double().expand(m, k) if pa.dim() == 1 else pa.double()
    pb = pb.double().expand(m, k) if pb.dim() == 1 else pb.double()
    expected = (pa.T @ pb).cpu()
    observed = torch.bincount((a.long() * k + b.long()).flatten(), minlength=k * k)
    observed = observed.reshape(k, k).cpu()
    for j in range(k):
        for h in range(k):
            bound = sum_tail(float(observed[j, h]), m, float(expected[j, h]))
            if bound <= alpha / (2 * k * k):
                return (f"{name}: {int(observed[j, h])} of {m} pairs in cell ({j}, {h}) where "
                        f"{float(expected[j, h]):.1f} were expected (probability <= "
                        f"{bound:.1e} for independent draws)")
    return None


def two_bins(p_one: float | torch.Tensor, device: torch.device | str = "cpu") -> torch.Tensor:
    """Bin probabilities of 0/1 draws: [1 - p, p], shared ([2]) or per element ([n, 2])."""
    if isinstance(p_one, torch.Tensor):
        q = p_one.detach().double().flatten()
        return torch.stack([1 - q, q], dim=1)
    return torch.tensor([1 - p_one, p_one], dtype=torch.float64, device=device)


def lag_test(name: str, x: torch.Tensor, p: torch.Tensor, lag: int, alpha: float,
             valid: torch.Tensor | None = None) -> str | None:
    """Bins `x` (flat) against themselves `lag` positions later, over disjoint pairs; `p` the
    bin probabilities, per element ([n, k]) or shared ([k]); pairs with a member outside
    `valid` are left out (chosen by the inputs alone, so the rest stay independent)."""
    x = x.flatten()
    n = x.numel()
    if lag <= 0 or lag >= n:
        return None
    i, j = disjoint_pairs(n, lag, x.device)
    if valid is not None:
        keep = valid.flatten()[i] & valid.flatten()[j]
        i, j = i[keep], j[keep]
    pa, pb = (p[i], p[j]) if p.dim() == 2 else (p, p)
    return pair_test(f"{name} (lag {lag})", x[i], x[j], pa, pb, alpha)


def periodicity_test(name: str, bits: torch.Tensor, p_one: float | torch.Tensor, alpha: float,
                     window: int = PERIODICITY_WINDOW) -> str | None:
    """0/1 draws, each 1 with probability `p_one` (shared or per element), must not repeat
    themselves at any lag: the autocorrelation (FFT over the first `window` draws) names the
    most suspect lags, each tested as a pair table at alpha / (number of lags), a union bound
    over every lag — a long-period pattern (a table cycled through, a generator of small
    state) repeats exactly at its period."""
    x = bits.flatten()[:window].double()
    n = x.numel()
    if n < 4:
        return None
    q = p_one.detach().double().flatten()[:window] if isinstance(p_one, torch.Tensor) \
        else torch.full_like(x, float(p_one))
    p = two_bins(q)
    c = x - q
    f = torch.fft.rfft(c, n=2 * n)
    acf = torch.fft.irfft(f * f.conj(), n=2 * n)[1:n]
    lags = torch.arange(1, n, device=x.device, dtype=torch.float64)
    score = acf.abs() / (n - lags).clamp(min=1).sqrt()
    score[lags > n // 2] = 0  # fewer than n / 4 disjoint pairs: too weak to be worth a test
    top = torch.topk(score, min(PERIODICITY_CANDIDATES, n - 1)).indices + 1
    for lag in top.tolist():
        problem = lag_test(name, x.long(), p, int(lag), alpha / (n - 1))
        if problem:
            return problem + " - the sequence repeats itself"
    return None


def equal_value_pairs(values: torch.Tensor, valid: torch.Tensor
                      ) -> tuple[torch.Tensor, torch.Tensor]:
    """Disjoint pairs of positions (flat) holding the same value, among the `valid` positions:
    within every run of equal values, its 1st and 2nd, its 3rd and 4th, ..."""
    v = values.detach().flatten()
    pos = valid.flatten().nonzero().flatten()
    if pos.numel() < 2:
        empty = pos[:0]
        return empty, empty
    order = torch.sort(v[pos].float(), stable=True).indices
    s = v[pos][order]
    k = torch.arange(s.numel(), device=s.device)
    new_run = torch.ones_like(k, dtype=torch.bool)
    new_run[1:] = s[1:] != s[:-1]
    run_start = torch.cummax(torch.where(new_run, k, torch.zeros_like(k)), dim=0).values
    first = ((k - run_start) % 2 == 0)[:-1] & ~new_run[1:]
    i = first.nonzero().flatten()
    return pos[order[i]], pos[order[i + 1]]


def category_test(name: str, b: torch.Tensor, p: torch.Tensor, alpha: float) -> str | None:
    """Independent draws of bins `b`, bin j with probability p[i, j] (or p[j]): every bin's
    count is a sum test at alpha / k — the distribution, with no pairing."""
    m = b.numel()
    if m == 0:
        return None
    k = p.shape[-1]
    expected = (p.double().expand(m, k) if p.dim() == 1 else p.double()).sum(0).cpu()
    observed = torch.bincount(b.long().flatten(), minlength=k).cpu()
    for j in range(k):
        bound = sum_tail(float(observed[j]), m, float(expected[j]))
        if bound <= alpha / (2 * k):
            return (f"{name}: {int(observed[j])} of {m} draws in bin {j} where "
                    f"{float(expected[j]):.1f} were expected (probability <= {bound:.1e} for "
                    "the claimed distribution)")
    return None


BINARY_FIELD_TESTS = 9


def binary_field(tests: Tests, name: str, drawn: torch.Tensor, prob: torch.Tensor | float,
                 valid: torch.Tensor, values: torch.Tensor | None) -> None:
    """The tests of a field of independent 0/1 draws `drawn` [M, N], 1 with probability `prob`
    (shared, or per element), judged where `valid`: the share drawn overall and on four
    value-defined subsets of `values` (a draw that leans on the input), the same value at two
    positions drawn independently (a draw keyed on the value), lag 1 and lag N pairs (neighbours
    in a row, and across rows), and every other lag (periodicity). BINARY_FIELD_TESTS of them."""
    d = drawn.bool()
    cols = d.shape[-1]
    q = prob.detach().double() if isinstance(prob, torch.Tensor) else \
        torch.full(d.shape, float(prob), dtype=torch.float64, device=d.device)
    q = q.expand(d.shape)
    ones = d & valid
    tests.add(sum_test(f"{name}: drawn overall", float(ones.sum()), int(valid.sum()),
                       float(q[valid].sum()), tests.share()))
    if values is not None:
        v = values.detach().float()
        a = v.abs()
        median = a[valid].median() if bool(valid.any()) else a.new_zeros(())
        subsets = {"positive values": v > 0, "negative values": v < 0,
                   "large values": a > median, "small values": a <= median}
    else:
        subsets = {}
    for label, sel in subsets.items():
        sel = sel & valid
        tests.add(sum_test(f"{name}: drawn on {label}", float((d & sel).sum()), int(sel.sum()),
                           float(q[sel].sum()), tests.share()))
    for _ in range(4 - len(subsets)):
        tests.share()  # budget spent whether or not there are values to test against
    flat, pf = d.flatten().long(), two_bins(q)
    if values is not None:
        i, j = equal_value_pairs(values, valid)
        tests.add(pair_test(f"{name}: positions holding the same input value", flat[i],
                            flat[j], pf[i], pf[j], tests.share()))
    else:
        tests.share()
    tests.add(lag_test(f"{name}: neighbours", flat, pf, 1, tests.share(), valid))
    tests.add(lag_test(f"{name}: rows", flat, pf, cols, tests.share(), valid))  # none if M=1
    tests.add(periodicity_test(name, d.flatten() & valid.flatten(),
                               q.flatten() * valid.flatten(), tests.share()))


def low_bits_zero(values: torch.Tensor, low_bits: int) -> torch.Tensor:
    """Finite non-zero float32 values whose lowest `low_bits` mantissa bits are all zero: what
    a value computed in bfloat16 (16 zero bits) or float16 (13) looks like in float32."""
    v = values.detach().float().flatten()
    v = v[torch.isfinite(v) & (v != 0)]
    raw = v.view(torch.int32)
    return (raw & ((1 << low_bits) - 1)) == 0


def resolution_test(name: str, values: torch.Tensor, alpha: float,
                    low_bits: int = 8) -> str | None:
    """float32 outputs must carry float32 resolution: the lowest 8 mantissa bits are all zero
    for about 1 in 256 values from an honest generator (the test allows 1 in 16), for every
    value computed in bfloat16 or float16."""
    zero = low_bits_zero(values, low_bits)
    return upper_test(f"{name}: values whose lowest {low_bits} mantissa bits are all zero "
                      "(computed in a narrower type)", float(zero.sum()), zero.numel(),
                      1 / 16, alpha)


CONTINUOUS_BINS = 4  # pair tables of continuous draws bin them in quarters
CONTINUOUS_FIELD_TESTS = 6
ZERO_RATE = 2.0**-20  # bound on P(a float32 draw == 0.0) for the continuous tasks' laws


def continuous_field(tests: Tests, name: str, values: torch.Tensor, u: torch.Tensor) -> None:
    """A field [M, N] of float32 draws whose probability-integral transform `u` = F(values)
    must be independent Uniform(0, 1) draws: the distribution (DKW), float32 resolution, no
    atom at 0.0 (what unwritten or zeroed output looks like; the tasks' laws put far less than
    ZERO_RATE there), lag 1 and lag N pairs in quarters, every other lag (periodicity of
    u < 1/2). CONTINUOUS_FIELD_TESTS of them."""
    cols = u.shape[-1]
    k = CONTINUOUS_BINS
    tests.add(dkw_test(f"{name}: distribution", u, tests.share()))
    tests.add(resolution_test(name, values, tests.share()))
    zeros = float((values == 0).sum())
    tests.add(upper_test(f"{name}: values exactly 0.0", zeros, values.numel(), ZERO_RATE,
                         tests.share()))
    quarters = bins(u, k)
    flat = torch.full((k,), 1 / k, dtype=torch.float64, device=u.device)
    tests.add(lag_test(f"{name}: neighbours", quarters, flat, 1, tests.share()))
    tests.add(lag_test(f"{name}: rows", quarters, flat, cols, tests.share()))  # none if M=1
    tests.add(periodicity_test(name, quarters < k // 2, 0.5, tests.share()))


def continuous_reseed(name: str, u_a: torch.Tensor, u_b: torch.Tensor) -> list[str]:
    """Two seeds, same other inputs: the draws at each position must be independent."""
    tests = Tests(1)
    k = CONTINUOUS_BINS
    flat = torch.full((k,), 1 / k, dtype=torch.float64, device=u_a.device)
    tests.add(pair_test(f"{name} under two seeds", bins(u_a, k), bins(u_b, k), flat, flat,
                        tests.share()))
    return tests.problems


CATEGORICAL_BINS = 8
EDGE = 1e-12  # a CDF value within this of a bin edge counts as on it (float64 cumsum rounding)
CATEGORICAL_TESTS = 4


def categorical_bins(samples: torch.Tensor, probs: torch.Tensor
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """Samples [M, S] of categories with probabilities probs [M, V] (float64, rows summing to
    1), binned by where the sampled category's upper CDF value F(s) falls among the eighths of
    [0, 1]: (bins [M, S], their exact probabilities [M, CATEGORICAL_BINS]). Any categorical
    law maps this way, so one table tests them all."""
    k = CATEGORICAL_BINS
    cdf = probs.double().cumsum(1)
    cdf = cdf / cdf[:, -1:].clamp(min=1e-300)
    upper = cdf.gather(1, samples.long())
    # the bin is judged with the tolerance G(t) below uses: a CDF value that float64 rounding
    # puts a hair past a bin's edge (equal probabilities summing to exactly 1/4) stays in it
    b = ((upper - EDGE) * k).ceil().clamp(1, k).long() - 1
    t = torch.arange(0, k + 1, device=probs.device, dtype=torch.float64) / k
    t = t.expand(cdf.shape[0], k + 1).contiguous()
    # G(t): the largest CDF value at or below t (0 when none): P(F(s) <= t) exactly.
    idx = torch.searchsorted(cdf.contiguous(), t + EDGE, right=True) - 1
    g = torch.where(idx >= 0, cdf.gather(1, idx.clamp(min=0)), torch.zeros_like(t))
    g[:, -1] = 1.0
    return b, (g[:, 1:] - g[:, :-1]).clamp(min=0)


def categorical(tests: Tests, name: str, samples: torch.Tensor, probs: torch.Tensor) -> None:
    """Independent samples [M, S], row r from probs[r]: the distribution of the CDF bins, pairs
    of consecutive samples of a row, the same sample index in two rows, and every other lag
    (periodicity). CATEGORICAL_TESTS of them."""
    s = samples.shape[1]
    b, p = categorical_bins(samples, probs)
    per_sample = p.repeat_interleave(s, dim=0)
    tests.add(category_test(f"{name}: distribution", b.flatten(), per_sample, tests.share()))
    tests.add(lag_test(f"{name}: consecutive samples", b.flatten(), per_sample, 1,
                       tests.share()))
    tests.add(lag_test(f"{name}: rows", b.flatten(), per_sample, s, tests.share()))
    # A table of draws cycled through repeats at its period, which lags 1 and S do not see:
    # whether each sample lands in the lower half of its CDF is one independent bit a sample.
    half = CATEGORICAL_BINS // 2
    tests.add(periodicity_test(f"{name}: every lag", b.flatten() < half,
                               per_sample[:, :half].sum(1), tests.share()))


def categorical_reseed(name: str, a: torch.Tensor, b: torch.Tensor,
                       probs: torch.Tensor) -> list[str]:
    tests = Tests(1)
    ba, p = categorical_bins(a, probs)
    bb, _ = categorical_bins(b, probs)
    per_sample = p.repeat_interleave(a.shape[1], dim=0)
    tests.add(pair_test(f"{name} under two seeds", ba.flatten(), bb.flatten(), per_sample,
                        per_sample, tests.share()))
    return tests.problems
