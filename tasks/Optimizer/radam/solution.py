import math

import triton
import triton.language as tl


@triton.jit
def _radam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, n_elements, beta1, one_minus_beta1, beta2,
                  one_minus_beta2, eps, step_size, rect_scale,
                  RECTIFY: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = beta1 * m + one_minus_beta1 * g
    v = beta2 * v + one_minus_beta2 * (g * g)
    if RECTIFY:
        p = p - step_size * m * (rect_scale / (tl.sqrt(v) + eps))
    else:
        p = p - step_size * m
    # In place: each program reads its elements before writing them back.
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(m_ptr + offs, m.to(m_ptr.dtype.element_ty), mask=mask)
    tl.store(v_ptr + offs, v.to(v_ptr.dtype.element_ty), mask=mask)


def run(p, g, exp_avg, exp_avg_sq, step: int):
    lr, beta1, beta2, eps = 1e-3, 0.9, 0.999, 1e-8
    # The rectification is a scalar of the step: decided and computed on the host in double.
    bias_correction1 = 1.0 - beta1 ** step
    bias_correction2 = 1.0 - beta2 ** step
    rho_inf = 2.0 / (1.0 - beta2) - 1.0
    rho_t = rho_inf - 2.0 * step * beta2 ** step / bias_correction2
    rectify = rho_t > 5.0
    rect_scale = 1.0
    if rectify:
        rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                         / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        rect_scale = rect * math.sqrt(bias_correction2)
    n = p.numel()
    BLOCK = 1024
    # contiguous tensors (the task promises it), written through their own pointers
    _radam_kernel[(triton.cdiv(n, BLOCK),)](
        p, g, exp_avg, exp_avg_sq, n, beta1, 1.0 - beta1, beta2, 1.0 - beta2, eps,
        lr / bias_correction1, rect_scale, RECTIFY=rectify, BLOCK=BLOCK, num_warps=4)
