import torch
import triton
import triton.language as tl


@triton.jit
def _bce_bwd_kernel(p_ptr, y_ptr, g_ptr, dx_ptr, n, inv_count, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.5).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.5).to(tl.float32)
    scale = tl.load(g_ptr) * inv_count
    dx = scale * (p - y) / tl.maximum(p * (1.0 - p), 1e-12)
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def run(prob: torch.Tensor, target: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    prob, target = prob.contiguous(), target.contiguous()
    dx = torch.empty_like(prob)
    n = prob.numel()
    BLOCK = 1024
    _bce_bwd_kernel[(triton.cdiv(n, BLOCK),)](prob, target, grad_out, dx, n, 1.0 / n,
                                              BLOCK=BLOCK, num_warps=4)
    return dx
