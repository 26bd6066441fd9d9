import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


# sign(c), c = beta1 m + (1 - beta1) g, is decided by rounding where c is within float32
# rounding of 0: honest float32 kernels (an FMA or not, 1 - beta1 rounded in float32 or not: up
# to ~4e-7 of the terms' size) disagree there by 2 lr, far past the float32 bounds (one element
# of 45M on an H100, run 21). The inputs keep every c further from 0 than NEAR_ZERO of its
# terms' size (g = -9 m, exact in bfloat16, gives c = 0 or ~1e-17 in float64 and a float32 c of
# either sign); the exact zeros of g = m = 0 stay.
NEAR_ZERO = 1e-6


def _clear_of_zero(g: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    for i in range(8):  # a step too small for m's dtype rounds back: 16x larger each pass
        gd, md = g.double(), m.double()
        c = 0.9 * md + 0.1 * gd
        size = 0.9 * md.abs() + 0.1 * gd.abs()
        near = ((g != 0) | (m != 0)) & (c.abs() <= NEAR_ZERO * size)  # c = 0 exactly too
        if not bool(near.any()):
            break
        step = 4.0 * 16.0 ** i * NEAR_ZERO * size / 0.9
        away = torch.where(c != 0, torch.sign(c), torch.sign(md))  # near: m != 0
        m = torch.where(near, (md + away * step).to(m.dtype), m)
    return m


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    p = normal(dims, dtype, gen)
    g = maybe_outliers(normal(dims, dtype, gen), gen, mode)
    m = normal(dims, dtype, gen, std=0.5)
    # edge case from the spec: where g = m = 0, sign(c) = 0
    dead = uniform(dims, "float32", gen) < 0.05
    g = torch.where(dead, 0.0, g.float()).to(g.dtype)
    m = torch.where(dead, 0.0, m.float()).to(m.dtype)
    return (p, g, _clear_of_zero(g, m))
