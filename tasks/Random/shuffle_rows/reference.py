import torch

from kgb.tasks import stats

_BINS = 8  # where a row's tracked element lands, in eighths of the row


def reference(x, seed):
    """Each row permuted by argsort of random int32 keys from a generator seeded with `seed`.
    Timing baseline only: the output is judged by check()."""
    gen = torch.Generator(device=x.device)
    gen.manual_seed(seed)
    keys = torch.randint(0, 2**31 - 1, x.shape, generator=gen, device=x.device,
                         dtype=torch.int32)
    return x.gather(1, keys.argsort(dim=1))


def _destinations(outputs, inputs) -> tuple[list[str], torch.Tensor | None]:
    """([problems], dest): dest[r, j] is the column input element x[r, j] went to."""
    x = inputs[0]
    if len(outputs) != 1:
        return [f"expected one output tensor, got {len(outputs)}"], None
    y = outputs[0]
    if not isinstance(y, torch.Tensor) or y.shape != x.shape or y.dtype != x.dtype \
            or y.device != x.device:
        what = f"{tuple(y.shape)} {y.dtype}" if isinstance(y, torch.Tensor) else type(y).__name__
        return [f"output is {what}; expected {tuple(x.shape)} {x.dtype} on {x.device}"], None
    xs, x_order = x.float().sort(dim=1)
    ys, y_order = y.float().sort(dim=1)
    wrong = (xs != ys).any(dim=1)  # NaN never equals: a NaN output is wrong too
    if wrong.any():
        r = int(wrong.nonzero()[0])
        return [f"{int(wrong.sum())} of {x.shape[0]} output rows are not a permutation of their "
                f"input row (e.g. row {r})"], None
    dest = torch.empty_like(x_order)
    dest.scatter_(1, x_order, y_order)
    return [], dest


def _order_bits(dest: torch.Tensor) -> torch.Tensor:
    """For the disjoint input pairs (0, 1), (2, 3), ... of every row: did the first element
    land before the second? In a uniform permutation these are independent fair coins."""
    h = dest.shape[1] // 2
    return dest[:, 0:2 * h:2] < dest[:, 1:2 * h:2]


def check(outputs, inputs) -> list[str]:
    """Every row a permutation of its input row; then, at most CALL_ALPHA false failures a
    call: the order of disjoint element pairs (adjacent, and half a row apart) a fair coin,
    the adjacent pairs' bits repeating at no lag (periodicity search), where one tracked element
    per row lands uniform, and rows shuffled independently (the
    order bits of identical row pairs agree half the time)."""
    problems, dest = _destinations(outputs, inputs)
    if dest is None:
        return problems
    m, n = dest.shape
    tests = stats.Tests(5)
    bits = _order_bits(dest)
    tests.add(stats.sum_test("adjacent elements kept in order", float(bits.sum()), bits.numel(),
                             bits.numel() / 2, tests.share()))
    # a key table cycled through repeats these bits at its period, across rows
    tests.add(stats.periodicity_test("adjacent elements kept in order", bits, 0.5,
                                     tests.share()))
    h = n // 2
    far = dest[:, :h] < dest[:, h:2 * h]
    tests.add(stats.sum_test("elements half a row apart kept in order", float(far.sum()),
                             far.numel(), far.numel() / 2, tests.share()))
    rows = torch.arange(m, device=dest.device)
    landed = dest[rows, rows % n]
    k = min(_BINS, n)
    per_bin = torch.bincount(torch.arange(n, device=dest.device) * k // n, minlength=k)
    tests.add(stats.category_test("where a row's tracked element lands",
                                  landed * k // n, per_bin.double() / n, tests.share()))
    pairs = m // 2
    agree = bits[0:2 * pairs:2] == bits[1:2 * pairs:2]
    tests.add(stats.sum_test("two rows shuffled alike", float(agree.sum()), agree.numel(),
                             agree.numel() / 2, tests.share()))
    return tests.problems


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _destinations(first, inputs_first)
    _, b = _destinations(second, inputs_second)
    if a is None or b is None:
        return []
    tests = stats.Tests(1)
    agree = _order_bits(a) == _order_bits(b)
    tests.add(stats.sum_test("two seeds shuffled alike", float(agree.sum()), agree.numel(),
                             agree.numel() / 2, tests.share()))
    return tests.problems
