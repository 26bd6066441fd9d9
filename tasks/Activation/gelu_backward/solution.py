import torch
import triton
import triton.language as tl


INV_SQRT2 = tl.constexpr(0.7071067811865476)
INV_SQRT_2PI = tl.constexpr(0.3989422804014327)


@triton.jit
def _gelu_backward_kernel(x_ptr, grad_out_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    grad_out = tl.load(grad_out_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    cdf = 0.5 * (1.0 + tl.erf(x * INV_SQRT2))
    pdf = tl.exp(-0.5 * x * x) * INV_SQRT_2PI  # underflows to 0 for large |x|, as it should
    dx = grad_out * (cdf + x * pdf)
    tl.store(out_ptr + offsets, dx.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    x, grad_out = x.contiguous(), grad_out.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _gelu_backward_kernel[(triton.cdiv(n, BLOCK),)](x, grad_out, out, n, BLOCK=BLOCK, num_warps=4)
    return out
