import torch
import triton
import triton.language as tl


@triton.jit
def _ema_kernel(ema_ptr, p_ptr, out_ptr, n_elements, weight, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    ema = tl.load(ema_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = ema + weight * (p - ema)
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def run(ema, p, step: int):
    decay = min(0.9999, 1.0 - (1.0 + step) ** -0.75)
    ema_c, p_c = ema.contiguous(), p.contiguous()
    out = torch.empty_like(ema_c)
    n = ema_c.numel()
    BLOCK = 1024
    _ema_kernel[(triton.cdiv(n, BLOCK),)](ema_c, p_c, out, n, 1.0 - decay, BLOCK=BLOCK,
                                          num_warps=4)
    return out
