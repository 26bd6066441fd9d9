import triton
import triton.language as tl


@triton.jit
def _adadelta_kernel(p_ptr, g_ptr, sq_ptr, acc_ptr, n_elements, lr, rho, one_minus_rho, eps,
                     weight_decay, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    sq = tl.load(sq_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    acc = tl.load(acc_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = g + weight_decay * p
    sq = rho * sq + one_minus_rho * (d * d)
    delta = tl.sqrt(acc + eps) / tl.sqrt(sq + eps) * d
    acc = rho * acc + one_minus_rho * (delta * delta)
    p = p - lr * delta
    # In place: each program reads its elements before writing them back.
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(sq_ptr + offs, sq.to(sq_ptr.dtype.element_ty), mask=mask)
    tl.store(acc_ptr + offs, acc.to(acc_ptr.dtype.element_ty), mask=mask)


def run(p, g, square_avg, acc_delta):
    lr, rho, eps, weight_decay = 1.0, 0.9, 1e-6, 1e-4
    n = p.numel()
    BLOCK = 1024
    # contiguous tensors (the task promises it), written through their own pointers
    _adadelta_kernel[(triton.cdiv(n, BLOCK),)](p, g, square_avg, acc_delta, n, lr, rho,
                                               1.0 - rho, eps, weight_decay, BLOCK=BLOCK,
                                               num_warps=4)
