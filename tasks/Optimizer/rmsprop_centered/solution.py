import torch
import triton
import triton.language as tl


@triton.jit
def _rmsprop_kernel(p_ptr, g_ptr, sq_ptr, ga_ptr, buf_ptr, p_out, sq_out, ga_out, buf_out,
                    n_elements, lr, alpha, one_minus_alpha, eps, momentum,
                    BLOCK: tl.constexpr):
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
    tl.store(p_out + offs, p.to(p_out.dtype.element_ty), mask=mask)
    tl.store(sq_out + offs, sq.to(sq_out.dtype.element_ty), mask=mask)
    tl.store(ga_out + offs, ga.to(ga_out.dtype.element_ty), mask=mask)
    tl.store(buf_out + offs, buf.to(buf_out.dtype.element_ty), mask=mask)


def run(p, g, square_avg, grad_avg, buf):
    lr, alpha, eps, momentum = 0.01, 0.99, 1e-8, 0.9
    p_c, g_c, sq_c = p.contiguous(), g.contiguous(), square_avg.contiguous()
    ga_c, buf_c = grad_avg.contiguous(), buf.contiguous()
    p_new, sq_new = torch.empty_like(p_c), torch.empty_like(sq_c)
    ga_new, buf_new = torch.empty_like(ga_c), torch.empty_like(buf_c)
    n = p_c.numel()
    BLOCK = 1024
    _rmsprop_kernel[(triton.cdiv(n, BLOCK),)](p_c, g_c, sq_c, ga_c, buf_c, p_new, sq_new,
                                              ga_new, buf_new, n, lr, alpha, 1.0 - alpha,
                                              eps, momentum, BLOCK=BLOCK, num_warps=4)
    return p_new, sq_new, ga_new, buf_new
