import torch

from kgb.tasks.inputs import dtype_of, integers, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K = shape["M"], shape["K"]
    packed = integers((M, K // 2), 0, 256, gen, dtype=torch.int32).to(torch.uint8)
    # block absmax as bitsandbytes stores it for a weight of ~N(0, 0.02): about 0.03 .. 0.1
    absmax = uniform((M, K // 64), "float32", gen, low=0.03, high=0.1)
    if mode == "outlier":
        # edge cases: an all-zero block (absmax 0), an outlier block, codes 0 and 15 (-1 and 1)
        flat = absmax.reshape(-1)
        picks = integers((2,), 0, flat.numel(), gen)
        flat[picks[0]] = 0.0
        flat[picks[1]] = 1000.0
        packed[0, 0] = 0x0F
        packed[M - 1, K // 2 - 1] = 0xF0
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (packed, absmax, probe)
