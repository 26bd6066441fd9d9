import torch

from kgb.tasks.inputs import dtype_of, integers, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, N, K = shape["M"], shape["N"], shape["K"]
    a = integers((M, K), -127, 128, gen, dtype=torch.int32).to(torch.int8)
    w = integers((N, K), -127, 128, gen, dtype=torch.int32).to(torch.int8)
    a_scale = uniform((M, 1), "float32", gen, low=1e-3, high=2e-2)
    w_scale = uniform((1, N), "float32", gen, low=1e-4, high=2e-3)
    if mode == "outlier":
        # edge cases: a saturated token (every |a| = 127, the largest accumulations) and a
        # token of zeros
        a[0] = torch.where(a[0] < 0, -127, 127).to(torch.int8)
        a[M - 1] = 0
    probe = torch.zeros(1, dtype=dtype_of(dtype), device=gen.device)
    return (a, w, a_scale, w_scale, probe)
