import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, D, B = shape["T"], shape["D"], shape["B"]
    dev = gen.device
    src = maybe_outliers(normal((T, D), dtype, gen), gen, mode, scale=1e2)
    # B - 1 cut points drawn with replacement (empty segments occur), none inside
    # [T/4, T/4 + T/2): with B >= 3 that span is one segment, so one segment covers half of
    # the rows (many blocks)
    cuts = torch.randint(0, T - T // 2 + 1, (B - 1,), generator=gen, device=dev)
    cuts = torch.where(cuts > T // 4, cuts + T // 2, cuts)
    if B >= 3:
        cuts[0] = T // 4
        cuts[1] = T // 4 + T // 2
    cuts, _ = torch.sort(cuts)
    if mode == "outlier" and B >= 3:
        cuts[-1] = T   # the last segment is empty
    zero = torch.zeros((1,), dtype=torch.int64, device=dev)
    end = torch.full((1,), T, dtype=torch.int64, device=dev)
    offsets = torch.cat([zero, cuts, end])
    return (src, offsets)
