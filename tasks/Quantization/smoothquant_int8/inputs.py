import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K = shape["M"], shape["K"]
    # a few outlier channels, as in the activations SmoothQuant is for
    channel_gain = torch.where(uniform((K,), "float32", gen) < 0.02, 10.0, 1.0)
    x = normal((M, K), "float32", gen) * channel_gain
    x = maybe_outliers(x.to(getattr(torch, dtype)), gen, mode)
    smooth = torch.exp(uniform((K,), "float32", gen, low=-2.3, high=2.3))  # 0.1 .. 10
    if mode == "outlier" and M >= 2:
        row = int(torch.randint(0, M, (1,), generator=gen, device=gen.device).item())
        x[row] = 0  # edge case from the spec: an all-zero token
    return (x, smooth)
