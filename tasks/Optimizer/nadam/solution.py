import triton
import triton.language as tl


@triton.jit
def _nadam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, n_elements, beta1, one_minus_beta1, beta2,
                  one_minus_beta2, eps, inv_bc2, coef_g, coef_m, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = beta1 * m + one_minus_beta1 * g
    v = beta2 * v + one_minus_beta2 * (g * g)
    denom = tl.sqrt(v * inv_bc2) + eps
    p = p - coef_g * (g / denom) - coef_m * (m / denom)
    # In place: each program reads its elements before writing them back.
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(m_ptr + offs, m.to(m_ptr.dtype.element_ty), mask=mask)
    tl.store(v_ptr + offs, v.to(v_ptr.dtype.element_ty), mask=mask)


def run(p, g, exp_avg, exp_avg_sq, step: int):
    lr, beta1, beta2, eps, momentum_decay = 2e-3, 0.9, 0.999, 1e-8, 4e-3

    def mu_at(t):
        return beta1 * (1.0 - 0.5 * 0.96 ** (t * momentum_decay))

    # The momentum schedule is scalar host math in double precision: mu_product is the
    # product of mu_1 .. mu_step (the optimizer's running state after this step).
    mu_product = 1.0
    for t in range(1, step + 1):
        mu_product *= mu_at(t)
    mu, mu_next = mu_at(step), mu_at(step + 1)
    coef_g = lr * (1.0 - mu) / (1.0 - mu_product)
    coef_m = lr * mu_next / (1.0 - mu_product * mu_next)
    n = p.numel()
    BLOCK = 1024
    # contiguous tensors (the task promises it), written through their own pointers
    _nadam_kernel[(triton.cdiv(n, BLOCK),)](
        p, g, exp_avg, exp_avg_sq, n, beta1, 1.0 - beta1, beta2, 1.0 - beta2, eps,
        1.0 / (1.0 - beta2 ** step), coef_g, coef_m, BLOCK=BLOCK, num_warps=4)
