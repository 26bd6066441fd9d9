import torch

N_SPECIAL = 5  # ids 0 .. 4: [PAD] 0, [CLS] 1, [SEP] 2, [MASK] 3, [UNK] 4
MASK_ID = 3


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """Sentences of random lengths: [CLS] tokens [SEP] [PAD]...; token ids drawn from a small
    part of the vocabulary, so equal ids recur (check() asks whether equal tokens were selected
    independently). Outlier mode: one row all padding, one row without padding, the first and
    last ids of the vocabulary."""
    B, L, V = shape["B"], shape["L"], shape["V"]
    common = max(V // 16, 8)
    ids = torch.randint(N_SPECIAL, N_SPECIAL + common, (B, L), generator=gen, device=gen.device)
    lengths = torch.randint(max(L // 2, 2), L + 1, (B,), generator=gen, device=gen.device)
    if mode == "outlier":
        lengths[0] = 0
        lengths[B - 1] = L
        ids[B - 1, 1] = V - 1
        ids[B - 1, 2] = N_SPECIAL
    pos = torch.arange(L, device=gen.device)[None, :]
    ids = torch.where(pos == 0, 1, ids)
    ids = torch.where(pos == lengths[:, None] - 1, 2, ids)
    ids = torch.where(pos >= lengths[:, None], 0, ids)
    special = ids < N_SPECIAL
    u = torch.rand((1,), generator=gen, device=gen.device).item()
    prob = round(0.1 + 0.2 * u, 3)  # mlm_probability in [0.1, 0.3]
    seed = int(torch.randint(0, 2**31 - 1, (1,), generator=gen, device=gen.device).item())
    return (ids, special, V, MASK_ID, prob, seed)
