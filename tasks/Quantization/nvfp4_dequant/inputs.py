import torch

from kgb.tasks.inputs import dtype_of, integers, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, K = shape["M"], shape["K"]
    packed = integers((M, K // 2), 0, 256, gen, dtype=torch.int32).to(torch.uint8)
    # e4m3 block scales as a quantizer makes them: amax / 6 / global, up to 448
    block_scales = uniform((M, K // 16), "float32", gen, low=0.5, high=448.0)
    if mode == "outlier":
        # edge cases from the spec: subnormal and zero block scales
        block_scales = torch.where(uniform((M, K // 16), "float32", gen) < 0.05,
                                   block_scales * 2.0 ** -14, block_scales)
        block_scales.reshape(-1)[0] = 0.0
    block_scales = block_scales.to(torch.float8_e4m3fn)
    global_scale = uniform((1,), "float32", gen, low=1e-4, high=1e-3)
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (packed, block_scales, global_scale, probe)
