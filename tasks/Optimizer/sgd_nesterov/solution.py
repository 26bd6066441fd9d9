import torch
import triton
import triton.language as tl


@triton.jit
def _sgd_nesterov_kernel(p_ptr, g_ptr, buf_ptr, p_out, buf_out, n_elements, lr, momentum,
                         weight_decay, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    buf = tl.load(buf_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = g + weight_decay * p
    buf = momentum * buf + d
    p = p - lr * (d + momentum * buf)
    tl.store(p_out + offs, p.to(p_out.dtype.element_ty), mask=mask)
    tl.store(buf_out + offs, buf.to(buf_out.dtype.element_ty), mask=mask)


def run(p, g, buf):
    p_c, g_c, buf_c = p.contiguous(), g.contiguous(), buf.contiguous()
    p_new, buf_new = torch.empty_like(p_c), torch.empty_like(buf_c)
    n = p_c.numel()
    BLOCK = 1024
    _sgd_nesterov_kernel[(triton.cdiv(n, BLOCK),)](p_c, g_c, buf_c, p_new, buf_new, n,
                                                   0.01, 0.9, 1e-4, BLOCK=BLOCK, num_warps=4)
    return p_new, buf_new
