import triton
import triton.language as tl


@triton.jit
def _adamax_kernel(p_ptr, g_ptr, m_ptr, u_ptr, n_elements, beta1, one_minus_beta1, beta2,
                   eps, weight_decay, clr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    d = g + weight_decay * p
    m = beta1 * m + one_minus_beta1 * d
    u = tl.maximum(beta2 * u, tl.abs(d) + eps)
    p = p - clr * (m / u)
    # In place: each program reads its elements before writing them back.
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(m_ptr + offs, m.to(m_ptr.dtype.element_ty), mask=mask)
    tl.store(u_ptr + offs, u.to(u_ptr.dtype.element_ty), mask=mask)


def run(p, g, exp_avg, exp_inf, step: int):
    lr, beta1, beta2, eps, weight_decay = 2e-3, 0.9, 0.999, 1e-8, 0.01
    clr = lr / (1.0 - beta1 ** step)  # host scalar, double precision
    n = p.numel()
    BLOCK = 1024
    # contiguous tensors (the task promises it), written through their own pointers
    _adamax_kernel[(triton.cdiv(n, BLOCK),)](p, g, exp_avg, exp_inf, n, beta1, 1.0 - beta1,
                                             beta2, eps, weight_decay, clr, BLOCK=BLOCK,
                                             num_warps=4)
