import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, SQ, SK = shape["B"], shape["H"], shape["SQ"], shape["SK"]
    head_dim = [32, 64, 80, 128][int(integers((1,), 0, 4, gen).item())]
    scale = head_dim ** -0.5
    scores = maybe_outliers(normal((B, H, SQ, SK), dtype, gen, std=2.0 * head_dim ** 0.5),
                            gen, mode)
    bias = uniform((B, 1, SQ, SK), "float32", gen, -4.0, 4.0)
    lengths = integers((B,), (SK + 1) // 2, SK + 1, gen)
    lengths[0] = SK
    if mode == "outlier" and B >= 2:
        lengths[1] = 1  # a single visible key: y = 1 there and the gradient is exactly 0
    keys = torch.arange(SK, device=gen.device)
    padded = keys[None, :] >= lengths[:, None]
    mask = bias.masked_fill(padded[:, None, None, :], float("-inf")).to(scores.dtype)
    grad_out = normal((B, H, SQ, SK), dtype, gen)
    return (scores, mask, scale, grad_out)
