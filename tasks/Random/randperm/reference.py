import torch

from kgb.tasks import stats

_BINS = 8  # where a row's tracked value lands, in eighths of the row


def reference(lengths, n, seed):
    """torch.randperm(L_i) per row (argsort of uniform noise, as MAE's random masking draws its
    per-sample permutations), -1 past each row's length. Timing baseline only: the output is
    judged by check()."""
    gen = torch.Generator(device=lengths.device)
    gen.manual_seed(seed)
    m = lengths.shape[0]
    cols = torch.arange(n, device=lengths.device)
    valid = cols[None, :] < lengths[:, None]
    noise = torch.rand((m, n), generator=gen, device=lengths.device)
    perm = torch.where(valid, noise, 2.0).argsort(dim=1)
    return torch.where(valid, perm, -1)


def _perms(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    lengths, n, _ = inputs
    m = lengths.shape[0]
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != (m, n) or y.dtype != torch.int64 \
            or y.device != lengths.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected ({m}, {n}) torch.int64 on {lengths.device}"], None
    cols = torch.arange(n, device=y.device)
    valid = cols[None, :] < lengths[:, None]
    pad = (~valid & (y != -1)).any(dim=1)
    if pad.any():
        r = int(pad.nonzero()[0])
        return [f"{int(pad.sum())} of {m} rows hold something other than -1 past their length "
                f"(e.g. row {r}, length {int(lengths[r])})"], None
    # a row of length L is a permutation of 0 .. L-1 iff its sorted valid part is 0 .. L-1
    ys = torch.where(valid, y, n).sort(dim=1).values
    wrong = (valid & (ys != cols[None, :])).any(dim=1)
    if wrong.any():
        r = int(wrong.nonzero()[0])
        return [f"{int(wrong.sum())} of {m} rows are not a permutation of 0 .. L-1 in their "
                f"first L columns (e.g. row {r}, length {int(lengths[r])})"], None
    return [], y


def _pair_bits(y: torch.Tensor, lengths: torch.Tensor, gap: torch.Tensor
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """(bits, valid): for disjoint column pairs (c, c + gap_i) of every row, both < L_i, is
    out[c] < out[c + gap_i]? In a uniform permutation the bits are independent fair coins
    (swapping the two values of any pair is a bijection that keeps the law)."""
    m, n = y.shape
    cols = torch.arange(n, device=y.device)
    first = ((cols[None, :] // gap[:, None]) % 2 == 0) & (cols[None, :] + gap[:, None]
                                                          < lengths[:, None])
    partner = (cols[None, :] + gap[:, None]).clamp(max=n - 1)
    bits = y < y.gather(1, partner)
    return bits, first


def _inverse(y: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """dest[i, v]: the column that holds value v in row i (for v < L_i; v itself past it). A
    permutation's inverse is uniform when it is, and a generator that is weak on one side (a
    rotated key stream shifts the argsort but keeps the ranks' order) shows on the other."""
    m, n = y.shape
    cols = torch.arange(n, device=y.device).expand(m, n)
    index = torch.where(cols < lengths[:, None], y, cols)
    return torch.empty_like(y).scatter_(1, index, cols)


def check(outputs, inputs) -> list[str]:
    """Every row a permutation of 0 .. L_i-1 followed by -1s; then, at most CALL_ALPHA false
    failures a call: the order of disjoint column pairs (adjacent, and half a row apart) a fair
    coin, for the permutation and its inverse, the adjacent pairs' bits repeating at no lag
    (periodicity search, both sides), the value at one tracked column per row uniform
    on 0 .. L_i-1, and two rows not permuted alike (the adjacent-pair bits of row pairs agree
    half the time, for the permutation and its inverse)."""
    problems, y = _perms(outputs, inputs)
    if y is None:
        return problems
    lengths = inputs[0]
    m, n = y.shape
    tests = stats.Tests(8)
    one = torch.ones_like(lengths)
    adj, adj_ok = _pair_bits(y, lengths, one)
    inv, _ = _pair_bits(_inverse(y, lengths), lengths, one)
    for label, bits in (("adjacent values in increasing order", adj),
                        ("adjacent values' columns in increasing order", inv)):
        tests.add(stats.sum_test(label, float(bits[adj_ok].sum()), int(adj_ok.sum()),
                                 int(adj_ok.sum()) / 2, tests.share()))
        # A key table cycled through repeats these bits at its period, across rows: searched
        # on every row's full width (the pairs past a row's length a certain 0), so that a
        # period is one lag whatever the lengths.
        pairs, ok = bits[:, 0::2], adj_ok[:, 0::2]
        tests.add(stats.periodicity_test(label, pairs & ok, ok.double() / 2, tests.share()))
    half = (lengths // 2).clamp(min=1)
    far, far_ok = _pair_bits(y, lengths, half)
    tests.add(stats.sum_test("values half a row apart in increasing order",
                             float(far[far_ok].sum()), int(far_ok.sum()),
                             int(far_ok.sum()) / 2, tests.share()))
    rows = torch.arange(m, device=y.device)
    tracked = y[rows, rows % lengths]
    k = _BINS
    v = torch.arange(n, device=y.device)
    in_row = v[None, :] < lengths[:, None]
    bin_of = v[None, :] * k // lengths[:, None]
    per_bin = torch.stack([(in_row & (bin_of == j)).sum(1) for j in range(k)], dim=1)
    tests.add(stats.category_test("the value at a tracked column", tracked * k // lengths,
                                  per_bin.double() / lengths[:, None].double(), tests.share()))
    pairs = m // 2
    both = adj_ok[0:2 * pairs:2] & adj_ok[1:2 * pairs:2]
    for label, bits in (("two rows permuted alike", adj), ("two rows' inverses alike", inv)):
        agree = (bits[0:2 * pairs:2] == bits[1:2 * pairs:2])[both]
        tests.add(stats.sum_test(label, float(agree.sum()), agree.numel(), agree.numel() / 2,
                                 tests.share()))
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _perms(first, inputs_first)
    _, b = _perms(second, inputs_second)
    if a is None or b is None:
        return []
    lengths = inputs_first[0]
    one = torch.ones_like(lengths)
    tests = stats.Tests(2)
    for label, (pa, pb) in (("two seeds permuted alike", (a, b)),
                            ("two seeds' inverses alike",
                             (_inverse(a, lengths), _inverse(b, lengths)))):
        bits_a, ok = _pair_bits(pa, lengths, one)
        bits_b, _ = _pair_bits(pb, lengths, one)
        agree = (bits_a == bits_b)[ok]
        tests.add(stats.sum_test(label, float(agree.sum()), agree.numel(), agree.numel() / 2,
                                 tests.share()))
    return tests.problems
