import torch

from kgb.tasks.inputs import FP8_MAX, dtype_of, fp8_codes, fp8_scales, integers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, ebits = shape["M"], shape["N"], shape["EBITS"]
    G = (N + 127) // 128
    q = fp8_codes((M, N), ebits, gen, mode)
    scale = fp8_scales((M, G), ebits, gen, -20 if mode == "outlier" else -4)
    if mode == "outlier" and M * G >= 3:
        # edge cases from the spec: a group with scale 0 (out +-0; NaN from NaN and Inf codes)
        # and the last, possibly partial, group of the last row a quantizer's all-zero group
        # (zero codes, scale 1e-10 / FP8_MAX); only where a group is left to hold nonzero answers
        row = int(integers((1,), 0, M, gen).item())
        scale[row, 0] = 0.0
        q.view(torch.uint8)[M - 1, (G - 1) * 128:] = 0
        scale[M - 1, G - 1] = torch.tensor(1e-10, device=scale.device) / FP8_MAX[ebits]
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (q, scale, probe)
