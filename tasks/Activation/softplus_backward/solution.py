import torch
import triton
import triton.language as tl


@triton.jit
def _softplus_backward_kernel(x_ptr, grad_out_ptr, out_ptr, n_elements, beta, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    grad_out = tl.load(grad_out_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    bx = x * beta
    dx = tl.where(bx > 20.0, grad_out, grad_out / (1.0 + tl.exp(-bx)))
    tl.store(out_ptr + offsets, dx.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, beta: float, grad_out: torch.Tensor) -> torch.Tensor:
    x, grad_out = x.contiguous(), grad_out.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _softplus_backward_kernel[(triton.cdiv(n, BLOCK),)](x, grad_out, out, n, beta, BLOCK=BLOCK,
                                                        num_warps=4)
    return out
