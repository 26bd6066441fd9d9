import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, W, C = shape["B"], shape["H"], shape["W"], shape["C"]
    x = maybe_outliers(normal((B, H, W, C), dtype, gen), gen, mode)
    # shifts never a multiple of the size (that would be the identity)
    sh = int(integers((1,), 1, H, gen)[0]) if H > 1 else 0
    sw = int(integers((1,), 1, W, gen)[0]) if W > 1 else 0
    signs = integers((2,), 0, 2, gen)
    sh = sh if int(signs[0]) else -sh
    sw = sw if int(signs[1]) else -sw
    if mode == "outlier":
        # shifts beyond the size, both directions
        sh += 2 * H if sh > 0 else -3 * H
        sw -= W
    return (x, sh, sw)
