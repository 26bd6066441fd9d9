import triton
import triton.language as tl


@triton.jit
def _lion_kernel(p_ptr, g_ptr, m_ptr, n_elements, lr, decay_factor, beta1, one_minus_beta1,
                 beta2, one_minus_beta2, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # 1 - beta1 from the host (0.1 rounded once, as lion-pytorch's alpha): 1 - 0.9f in float32
    # is 0.100000024, 3 ulps off, and moves c by more than its rounding where c is near 0
    c = beta1 * m + one_minus_beta1 * g
    direction = tl.where(c > 0, 1.0, tl.where(c < 0, -1.0, 0.0))
    p = p * decay_factor - lr * direction
    m = beta2 * m + one_minus_beta2 * g
    # In place: each program reads its elements before writing them back.
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(m_ptr + offs, m.to(m_ptr.dtype.element_ty), mask=mask)


def run(p, g, m):
    lr, beta1, beta2, weight_decay = 1e-4, 0.9, 0.99, 0.1
    n = p.numel()
    BLOCK = 1024
    # contiguous tensors (the task promises it), written through their own pointers
    _lion_kernel[(triton.cdiv(n, BLOCK),)](p, g, m, n, lr, 1.0 - lr * weight_decay, beta1,
                                           1.0 - beta1, beta2, 1.0 - beta2, BLOCK=BLOCK,
                                           num_warps=4)
