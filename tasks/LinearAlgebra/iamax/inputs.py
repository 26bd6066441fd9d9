import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    """x [M, N] normal (low-precision dtypes tie often: the first index must win). Outlier
    mode: amplified elements, an all-zero row, a row of equal magnitudes with alternating signs
    (every element ties), a row whose maximum |x| is negative and at the last column, a row
    whose maximum is tied between -a (later) and +a (earlier)."""
    M, N = shape["M"], shape["N"]
    x = maybe_outliers(normal((M, N), dtype, gen), gen, mode)
    if mode == "outlier":
        sign = 1 - 2 * (torch.arange(N, device=gen.device) % 2)
        x[0] = 0
        if M > 1:
            x[1] = (0.75 * sign).to(x.dtype)
        if M > 2:
            x[2, -1] = -2 * x[2].abs().max() - 1
        if M > 3 and N > 2:
            top = x[3].abs().max() + 1
            x[3, N // 3] = top
            x[3, 2 * N // 3] = -top
    return (x,)
