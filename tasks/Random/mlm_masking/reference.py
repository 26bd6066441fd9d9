import torch

from kgb.tasks import stats

IGNORE = -100
K = 8  # bins of the vocabulary for the random replacement tokens
TESTS = stats.BINARY_FIELD_TESTS + 3


def reference(ids, special, vocab, mask_id, prob, seed):
    """transformers' DataCollatorForLanguageModeling.torch_mask_tokens from a generator seeded
    with `seed`. Timing baseline only: the output is judged by check()."""
    gen = torch.Generator(device=ids.device)
    gen.manual_seed(seed)
    dev = ids.device
    labels = ids.clone()
    chosen = (torch.rand(ids.shape, generator=gen, device=dev) < prob) & ~special
    labels[~chosen] = IGNORE
    replaced = (torch.rand(ids.shape, generator=gen, device=dev) < 0.8) & chosen
    out = torch.where(replaced, mask_id, ids)
    rnd = (torch.rand(ids.shape, generator=gen, device=dev) < 0.5) & chosen & ~replaced
    words = torch.randint(vocab, ids.shape, generator=gen, device=dev)
    return torch.where(rnd, words, out), labels


def _parse(outputs, inputs):
    """([problems], chosen [B, L], outcome of each chosen position (0 mask, 1 unchanged, 2 other
    token), the tokens of the 'other' outcomes)."""
    ids, special, vocab, mask_id, _, _ = inputs
    if len(outputs) != 2:
        return [f"expected two output tensors (input_ids, labels), got {len(outputs)}"], None
    new, labels = outputs
    for name, t in (("input_ids", new), ("labels", labels)):
        if not isinstance(t, torch.Tensor) or t.shape != ids.shape or t.dtype != torch.int64 \
                or t.device != ids.device:
            what = f"{tuple(t.shape)} {t.dtype}" if isinstance(t, torch.Tensor) else \
                type(t).__name__
            return [f"{name} is {what}; expected {tuple(ids.shape)} torch.int64 on "
                    f"{ids.device}"], None
    chosen = labels != IGNORE
    rules = {
        "labels neither -100 nor the original token": chosen & (labels != ids),
        "special tokens selected": chosen & special,
        "unselected positions changed": ~chosen & (new != ids),
        "tokens outside the vocabulary": (new < 0) | (new >= vocab),
    }
    for what, bad in rules.items():
        if bad.any():
            b, i = (int(v) for v in bad.nonzero()[0])
            return [f"{int(bad.sum())} positions: {what}; e.g. [{b}, {i}]: id {int(ids[b, i])}, "
                    f"input_ids {int(new[b, i])}, label {int(labels[b, i])}"], None
    outcome = torch.where(new == mask_id, 0, torch.where(new == ids, 1, 2))
    return [], (chosen, outcome[chosen], new[chosen], ids[chosen])


def check(outputs, inputs) -> list[str]:
    """The structure (labels -100 or the original token, specials never selected, other
    positions unchanged, tokens in the vocabulary), then the selection field judged as
    independent draws of probability mlm_probability on the non-special positions
    (stats.binary_field: overall and by token id, equal tokens, neighbours, rows,
    periodicity), the 80 / 10 / 10 split of the selected positions (exact probabilities: the
    random token may be the mask or the original), consecutive selected positions' outcomes
    independent, and the random tokens uniform over the vocabulary (eight bins), at most
    CALL_ALPHA false failures a call."""
    problems, parsed = _parse(outputs, inputs)
    if parsed is None:
        return problems
    chosen, outcome, tokens, original = parsed
    ids, special, vocab, mask_id, prob, _ = inputs
    tests = stats.Tests(TESTS)
    stats.binary_field(tests, "selected positions", chosen, prob, ~special, ids)
    split = torch.tensor([0.8 + 0.1 / vocab, 0.1 + 0.1 / vocab, 0.1 * (vocab - 2) / vocab],
                         dtype=torch.float64, device=ids.device)
    tests.add(stats.category_test("80/10/10 split of the selected positions", outcome, split,
                                  tests.share()))
    tests.add(stats.lag_test("outcomes of consecutive selected positions", outcome, split, 1,
                             tests.share()))
    other = outcome == 2
    tests.add(_token_bins(tokens[other], original[other], vocab, mask_id, tests.share()))
    return tests.problems


def _token_bins(tokens, original, vocab, mask_id, alpha) -> str | None:
    """The 'other token' outcomes: uniform over the vocabulary less the mask and the original
    token; eight bins of equal width, exact per-draw probabilities."""
    if tokens.numel() == 0:
        return None
    edges = (torch.arange(K + 1, device=tokens.device) * vocab + K - 1) // K
    width = (edges[1:] - edges[:-1]).double()[None, :].expand(tokens.numel(), K).clone()
    b_of = lambda t: torch.searchsorted(edges, t, right=True) - 1  # noqa: E731
    rows = torch.arange(tokens.numel(), device=tokens.device)
    width[rows, b_of(original)] -= 1
    width[rows, b_of(torch.full_like(original, mask_id))] -= 1
    probs = width / (vocab - 2)
    return stats.category_test("random replacement tokens", b_of(tokens), probs, alpha)


def check_reseed(first, inputs_first, second, inputs_second) -> list[str]:
    _, a = _parse(first, inputs_first)
    _, b = _parse(second, inputs_second)
    if a is None or b is None:
        return []
    special, prob = inputs_first[1], inputs_first[4]
    seen = ~special
    tests = stats.Tests(1)
    p = stats.two_bins(prob, special.device)
    tests.add(stats.pair_test("selected positions under two seeds", a[0][seen].long(),
                              b[0][seen].long(), p, p, tests.share()))
    return tests.problems
