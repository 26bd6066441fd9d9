import triton
import triton.language as tl


@triton.jit
def _sgd_nesterov_kernel(p_ptr, g_ptr, buf_ptr, n_elements, lr, momentum, weight_decay,
                         BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    buf = tl.load(buf_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = g + weight_decay * p
    buf = momentum * buf + d
    p = p - lr * (d + momentum * buf)
    # In place: each program reads its elements before writing them back.
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(buf_ptr + offs, buf.to(buf_ptr.dtype.element_ty), mask=mask)


def run(p, g, buf):
    n = p.numel()
    BLOCK = 1024
    # contiguous tensors (the task promises it), written through their own pointers
    _sgd_nesterov_kernel[(triton.cdiv(n, BLOCK),)](p, g, buf, n, 0.01, 0.9, 1e-4, BLOCK=BLOCK,
                                                   num_warps=4)
