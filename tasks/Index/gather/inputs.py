import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, K = shape["M"], shape["N"], shape["K"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    idx = integers((M, K), 0, N, gen)
    # Every row reads column 0 and column N - 1 at a random position (bounds bugs).
    cols = torch.arange(K, device=gen.device)
    first = integers((M, 1), 0, K, gen)
    last = integers((M, 1), 0, K, gen)
    idx = torch.where(cols == first, 0, idx)
    idx = torch.where(cols == last, N - 1, idx)
    return (x, idx)
