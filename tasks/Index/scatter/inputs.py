import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, K = shape["M"], shape["N"], shape["K"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    # K distinct columns per row: the first K entries of a random permutation of [0, N).
    keys = torch.rand((M, N), generator=gen, device=gen.device)
    idx = torch.argsort(keys, dim=1, stable=True)[:, :K].contiguous()
    src = maybe_outliers(normal((M, K), dtype, gen, std=2.0, mean=3.0), gen, mode)
    return (x, idx, src)
