import triton
import triton.language as tl


@triton.jit
def _rmsprop_kernel(p_ptr, g_ptr, sq_ptr, ga_ptr, buf_ptr, n_elements, lr, alpha,
                    one_minus_alpha, eps, momentum, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    sq = tl.load(sq_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    ga = tl.load(ga_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    buf = tl.load(buf_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    sq = alpha * sq + one_minus_alpha * (g * g)
    ga = alpha * ga + one_minus_alpha * g
    avg = tl.sqrt(sq - ga * ga) + eps
    buf = momentum * buf + g / avg
    p = p - lr * buf
    # In place: each program reads its elements before writing them back.
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(sq_ptr + offs, sq.to(sq_ptr.dtype.element_ty), mask=mask)
    tl.store(ga_ptr + offs, ga.to(ga_ptr.dtype.element_ty), mask=mask)
    tl.store(buf_ptr + offs, buf.to(buf_ptr.dtype.element_ty), mask=mask)


def run(p, g, square_avg, grad_avg, buf):
    lr, alpha, eps, momentum = 0.01, 0.99, 1e-8, 0.9
    n = p.numel()
    BLOCK = 1024
    # contiguous tensors (the task promises it), written through their own pointers
    _rmsprop_kernel[(triton.cdiv(n, BLOCK),)](p, g, square_avg, grad_avg, buf, n, lr, alpha,
                                              1.0 - alpha, eps, momentum, BLOCK=BLOCK,
                                              num_warps=4)
