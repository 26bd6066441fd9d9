import torch
import triton
import triton.language as tl


@triton.jit
def _smooth_l1_bwd_kernel(a_ptr, b_ptr, g_ptr, dx_ptr, n, beta, inv_count, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    d = a - b
    slope = tl.minimum(tl.maximum(d / beta, -1.0), 1.0)
    grad = tl.load(g_ptr) * inv_count * slope
    tl.store(dx_ptr + offs, grad.to(dx_ptr.dtype.element_ty), mask=mask)


def run(input: torch.Tensor, target: torch.Tensor, beta: float,
        grad_out: torch.Tensor) -> torch.Tensor:
    a = input.contiguous()
    b = target.contiguous()
    n = a.numel()
    dx = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    BLOCK = 1024
    _smooth_l1_bwd_kernel[(triton.cdiv(n, BLOCK),)](a, b, grad_out, dx, n, beta, 1.0 / n,
                                                    BLOCK=BLOCK, num_warps=4)
    return dx
