import torch

from kgb.tasks.inputs import FP8_MAX, dtype_of, fp8_codes, fp8_scales, integers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, ebits = shape["M"], shape["N"], shape["EBITS"]
    q = fp8_codes((M, N), ebits, gen, mode)
    scale = fp8_scales((M, 1), ebits, gen, -20 if mode == "outlier" else -4)
    if mode == "outlier" and M >= 3:  # a row left to hold nonzero answers
        # edge cases from the spec: a row with scale 0 (out +-0; NaN from NaN and Inf codes)
        # and a quantizer's all-zero row (zero codes, scale 1e-10 / FP8_MAX)
        row = int(integers((1,), 0, M, gen).item())
        scale[row] = 0.0
        other = (row + 1) % M
        q.view(torch.uint8)[other] = 0
        scale[other] = torch.tensor(1e-10, device=scale.device) / FP8_MAX[ebits]
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (q, scale, probe)
