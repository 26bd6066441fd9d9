import torch
import triton
import triton.language as tl


@triton.jit
def _silu_backward_kernel(x_ptr, grad_out_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    grad_out = tl.load(grad_out_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-x))
    # s * (1 + x * (1 - s)) = s + x * s * (1 - s); s * (1 - s) = e / (1 + e)^2 with
    # e = exp(-|x|) never overflows and x * 0 stays 0 for x << 0
    e = tl.exp(-tl.abs(x))
    dx = grad_out * (s + x * (e / ((1.0 + e) * (1.0 + e))))
    tl.store(out_ptr + offsets, dx.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    x, grad_out = x.contiguous(), grad_out.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _silu_backward_kernel[(triton.cdiv(n, BLOCK),)](x, grad_out, out, n, BLOCK=BLOCK, num_warps=4)
    return out
