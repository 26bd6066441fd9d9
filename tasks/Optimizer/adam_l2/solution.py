import triton
import triton.language as tl


@triton.jit
def _adam_l2_kernel(p_ptr, g_ptr, m_ptr, v_ptr, n_elements, beta1, one_minus_beta1, beta2,
                    one_minus_beta2, eps, weight_decay, step_size, inv_sqrt_bc2,
                    BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = g + weight_decay * p
    m = beta1 * m + one_minus_beta1 * d
    v = beta2 * v + one_minus_beta2 * (d * d)
    denom = tl.sqrt(v) * inv_sqrt_bc2 + eps
    p = p - step_size * (m / denom)
    # In place: each program reads its elements before writing them back.
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(m_ptr + offs, m.to(m_ptr.dtype.element_ty), mask=mask)
    tl.store(v_ptr + offs, v.to(v_ptr.dtype.element_ty), mask=mask)


def run(p, g, m, v, step: int):
    lr, beta1, beta2, eps, weight_decay = 1e-3, 0.9, 0.999, 1e-8, 0.01
    # scalar hyper-parameter math on the host in double precision
    step_size = lr / (1.0 - beta1 ** step)
    inv_sqrt_bc2 = (1.0 - beta2 ** step) ** -0.5
    n = p.numel()
    BLOCK = 1024
    # contiguous tensors (the task promises it), written through their own pointers
    _adam_l2_kernel[(triton.cdiv(n, BLOCK),)](
        p, g, m, v, n, beta1, 1.0 - beta1, beta2, 1.0 - beta2, eps, weight_decay, step_size,
        inv_sqrt_bc2, BLOCK=BLOCK, num_warps=4)
