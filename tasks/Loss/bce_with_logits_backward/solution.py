import torch
import triton
import triton.language as tl


@triton.jit
def _bce_logits_bwd_kernel(x_ptr, y_ptr, g_ptr, dx_ptr, n, inv_count, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    e = tl.exp(-tl.abs(x))
    sig = tl.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    grad = tl.load(g_ptr) * inv_count * (sig - y)
    tl.store(dx_ptr + offs, grad.to(dx_ptr.dtype.element_ty), mask=mask)


def run(logits: torch.Tensor, target: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    x = logits.contiguous()
    y = target.contiguous()
    n = x.numel()
    dx = torch.empty(logits.shape, dtype=logits.dtype, device=logits.device)
    BLOCK = 1024
    _bce_logits_bwd_kernel[(triton.cdiv(n, BLOCK),)](x, y, grad_out, dx, n, 1.0 / n,
                                                     BLOCK=BLOCK, num_warps=4)
    return dx
