import torch
import triton
import triton.language as tl


@triton.jit
def _relu_squared_backward_kernel(x_ptr, g_ptr, out_ptr, n_elements,
                                  BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    dx = 2.0 * g * tl.maximum(x, 0.0)
    tl.store(out_ptr + offsets, dx.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    x, grad_out = x.contiguous(), grad_out.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _relu_squared_backward_kernel[(triton.cdiv(n, BLOCK),)](
        x, grad_out, out, n, BLOCK=BLOCK, num_warps=4)
    return out
