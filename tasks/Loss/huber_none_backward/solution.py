import torch
import triton
import triton.language as tl


@triton.jit
def _huber_bwd_kernel(a_ptr, b_ptr, g_ptr, dx_ptr, n, delta, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = (tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
         - tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32))
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    dx = g * tl.minimum(tl.maximum(d, -delta), delta)
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def run(input: torch.Tensor, target: torch.Tensor, delta: float,
        grad_out: torch.Tensor) -> torch.Tensor:
    input, target, grad_out = input.contiguous(), target.contiguous(), grad_out.contiguous()
    dx = torch.empty_like(input)
    n = input.numel()
    BLOCK = 1024
    _huber_bwd_kernel[(triton.cdiv(n, BLOCK),)](input, target, grad_out, dx, n, delta,
                                                BLOCK=BLOCK, num_warps=4)
    return dx
