import torch

from kgb.tasks.inputs import dtype_of, integers


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K = shape["M"], shape["K"]
    packed = integers((M, K // 2), 0, 256, gen, dtype=torch.int32).to(torch.uint8)
    scales = integers((M, K // 32), 117, 138, gen, dtype=torch.int32).to(torch.uint8)
    if mode == "outlier":
        # edge cases from the spec: a NaN block (255) and the extreme finite exponents
        flat = scales.reshape(-1)
        picks = integers((3,), 0, flat.numel(), gen)
        flat[picks[0]] = 2
        flat[picks[1]] = 254
        flat[picks[2]] = 255
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (packed, scales, probe)
