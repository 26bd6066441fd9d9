import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, DK, DV = shape["B"], shape["H"], shape["S"], shape["DK"], shape["DV"]
    q = maybe_outliers(normal((B, H, S, DK), dtype, gen), gen, mode, scale=1e1)
    k = maybe_outliers(normal((B, H, S, DK), dtype, gen), gen, mode, scale=1e1)
    v = maybe_outliers(normal((B, H, S, DV), dtype, gen), gen, mode, scale=1e1)
    # RetNet's per-head decays gamma_h = 1 - 2^(-5 - h), cycled over 8 values (TorchScale and
    # fla use H of at most ~16 heads); given as log2(gamma) in float32
    h = torch.arange(H, device=gen.device, dtype=torch.float64) % 8
    log2_gamma = torch.log2(1 - torch.pow(2.0, -5.0 - h)).float()
    if mode == "outlier":
        q[:, :, -1] = 0  # a zero query: o = 0 there
        k[:, 0, 0] = 0  # a zero key: contributes nothing
    return (q, k, v, log2_gamma, DK ** -0.5)
