import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    NB, BS, H, D = shape["NB"], shape["BS"], shape["H"], shape["D"]
    B, MB, TT = shape["B"], shape["MB"], shape["TT"]
    cache = maybe_outliers(normal((NB, BS, H, D), dtype, gen), gen, mode)
    block_table = integers((B, MB), 0, NB, gen, dtype=torch.int32)
    block_table[0, 0] = 0
    block_table[-1, 0] = NB - 1
    # B lengths >= 1 summing to TT: B - 1 distinct cut points in [1, TT - 1]; in outlier mode
    # the cuts crowd at the start (many 1-token sequences and one long one)
    span = TT - 1 if mode != "outlier" else min(TT - 1, max(2 * B, B - 1))
    keys = torch.rand((span,), generator=gen, device=gen.device)
    cuts = torch.sort(torch.argsort(keys)[: B - 1] + 1).values
    cu = torch.zeros(B + 1, dtype=torch.int64, device=gen.device)
    cu[1:B] = cuts
    cu[B] = TT
    return (cache, block_table, cu.to(torch.int32), TT)
