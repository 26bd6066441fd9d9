import math

import torch

from kgb.tasks.inputs import maybe_outliers, normal


def _t5_buckets(S: int, num_buckets: int, max_distance: int, device) -> torch.Tensor:
    # HF T5Attention._relative_position_bucket (bidirectional) of every offset j - i, -(S-1)..S-1
    rel = torch.arange(-(S - 1), S, device=device)
    half = num_buckets // 2
    bucket = (rel > 0).long() * half
    n = rel.abs()
    max_exact = half // 2
    large = max_exact + (torch.log(n.float().clamp(min=1) / max_exact)
                         / math.log(max_distance / max_exact) * (half - max_exact)).long()
    large = large.clamp(max=half - 1)
    return (bucket + torch.where(n < max_exact, n, large)).to(torch.int32)


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, D, NB = shape["B"], shape["H"], shape["S"], shape["D"], shape["NB"]
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, H, S, D), dtype, gen)
    v = maybe_outliers(normal((B, H, S, D), dtype, gen), gen, mode, scale=1e2)
    rel_bias = normal((NB, H), dtype, gen, std=2.0)
    bucket = _t5_buckets(S, NB, 128, gen.device)
    if mode == "outlier":
        rel_bias[NB // 2 + 1, 0] = 40.0  # head 0: the next key (j = i + 1) dominates
        q[:, -1, 0] = 0  # a zero query: the bias alone decides
    return (q, k, v, rel_bias, bucket, 1.0)
