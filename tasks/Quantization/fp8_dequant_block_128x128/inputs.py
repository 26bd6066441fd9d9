import torch

from kgb.tasks.inputs import FP8_MAX, dtype_of, fp8_codes, fp8_scales


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, ebits = shape["M"], shape["N"], shape["EBITS"]
    GM, GN = (M + 127) // 128, (N + 127) // 128
    q = fp8_codes((M, N), ebits, gen, mode)
    scale = fp8_scales((GM, GN), ebits, gen, -20 if mode == "outlier" else -4)
    if mode == "outlier" and GM * GN >= 3:
        # edge cases from the spec: the first block with scale 0 (out +-0; NaN from NaN and Inf
        # codes) and the last, possibly partial, block a quantizer's all-zero block (zero codes,
        # scale 1e-10 / FP8_MAX); only where a block is left to hold nonzero answers
        scale[0, 0] = 0.0
        q.view(torch.uint8)[(GM - 1) * 128:, (GN - 1) * 128:] = 0
        scale[GM - 1, GN - 1] = torch.tensor(1e-10, device=scale.device) / FP8_MAX[ebits]
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (q, scale, probe)
