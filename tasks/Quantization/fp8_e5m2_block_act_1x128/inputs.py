import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K = shape["M"], shape["K"]
    x = maybe_outliers(normal((M, K), dtype, gen), gen, mode)
    if mode == "outlier":
        # edge cases from the spec: an all-zero group (the epsilon scale) and the last,
        # possibly partial, group of a row scaled up by 1e3
        row = int(torch.randint(0, M, (1,), generator=gen, device=gen.device).item())
        x[row, :min(K, 128)] = 0
        last = ((K - 1) // 128) * 128
        # finite: an outlier (1e3) there times 1e3 overflowed float16 to Inf (x must be finite)
        big = torch.finfo(x.dtype).max / 4
        x[M - 1, last:] = (x[M - 1, last:].float() * 1000).clamp(-big, big).to(x.dtype)
    return (x,)
