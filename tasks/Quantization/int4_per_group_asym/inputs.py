import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, K = shape["N"], shape["K"]
    w = maybe_outliers(normal((N, K), dtype, gen, std=0.02, mean=0.003), gen, mode)
    if mode == "outlier":
        # edge cases from the spec: a constant group (the 1e-5 floor), an all-positive group
        # (zero clamps to 0) and the last, possibly partial, group of a row scaled by 1e3
        row = int(torch.randint(0, N, (1,), generator=gen, device=gen.device).item())
        w[row, :min(K, 128)] = 0.5
        w[(row + 1) % N, :min(K, 128)] = w[(row + 1) % N, :min(K, 128)].abs() + 0.01
        last = ((K - 1) // 128) * 128
        w[N - 1, last:] = w[N - 1, last:] * 1000
    return (w,)
