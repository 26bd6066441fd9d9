import torch
import triton
import triton.language as tl


@triton.jit
def _l1_bwd_kernel(a_ptr, b_ptr, g_ptr, dx_ptr, n, inv_count, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    d = (tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
         - tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32))
    scale = tl.load(g_ptr) * inv_count
    sign = tl.where(d > 0.0, 1.0, tl.where(d < 0.0, -1.0, 0.0))
    tl.store(dx_ptr + offs, (scale * sign).to(dx_ptr.dtype.element_ty), mask=mask)


def run(input: torch.Tensor, target: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    input, target = input.contiguous(), target.contiguous()
    dx = torch.empty_like(input)
    n = input.numel()
    BLOCK = 1024
    _l1_bwd_kernel[(triton.cdiv(n, BLOCK),)](input, target, grad_out, dx, n, 1.0 / n,
                                             BLOCK=BLOCK, num_warps=4)
    return dx
