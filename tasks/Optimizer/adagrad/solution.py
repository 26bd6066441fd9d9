import torch
import triton
import triton.language as tl


@triton.jit
def _adagrad_kernel(p_ptr, g_ptr, s_ptr, p_out, s_out, n_elements, clr, weight_decay, eps,
                    BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = g + weight_decay * p
    s = s + d * d
    p = p - clr * (d / (tl.sqrt(s) + eps))
    tl.store(p_out + offs, p.to(p_out.dtype.element_ty), mask=mask)
    tl.store(s_out + offs, s.to(s_out.dtype.element_ty), mask=mask)


def run(p, g, state_sum, step: int):
    lr, lr_decay, weight_decay, eps = 0.01, 1e-3, 1e-4, 1e-10
    p_c, g_c, s_c = p.contiguous(), g.contiguous(), state_sum.contiguous()
    p_new, s_new = torch.empty_like(p_c), torch.empty_like(s_c)
    clr = lr / (1.0 + (step - 1) * lr_decay)
    n = p_c.numel()
    BLOCK = 1024
    _adagrad_kernel[(triton.cdiv(n, BLOCK),)](p_c, g_c, s_c, p_new, s_new, n, clr,
                                              weight_decay, eps, BLOCK=BLOCK, num_warps=4)
    return p_new, s_new
