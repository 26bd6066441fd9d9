import torch
import triton
import triton.language as tl


@triton.jit
def _tanh_backward_kernel(y_ptr, grad_out_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    y = tl.load(y_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    grad_out = tl.load(grad_out_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    dx = grad_out * (1.0 - y * y)
    tl.store(out_ptr + offsets, dx.to(out_ptr.dtype.element_ty), mask=mask)


def run(y: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    y, grad_out = y.contiguous(), grad_out.contiguous()
    out = torch.empty_like(y)
    n = y.numel()
    BLOCK = 1024
    _tanh_backward_kernel[(triton.cdiv(n, BLOCK),)](y, grad_out, out, n, BLOCK=BLOCK, num_warps=4)
    return out
