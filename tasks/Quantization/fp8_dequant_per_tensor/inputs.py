import torch

from kgb.tasks.inputs import dtype_of, fp8_codes, fp8_scales


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    ebits = shape["EBITS"]
    q = fp8_codes((shape["M"], shape["N"]), ebits, gen, mode)
    # outlier mode: scales down to 2**-20 / FP8_MAX (float16 outputs in its subnormal range
    # and below it, rounded once; not so low that every float16 output is zero)
    scale = fp8_scales((1,), ebits, gen, -20 if mode == "outlier" else -4)
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (q, scale, probe)
