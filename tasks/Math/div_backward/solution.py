import torch
import triton
import triton.language as tl


@triton.jit
def _div_backward_kernel(x_ptr, y_ptr, grad_out_ptr, out0_ptr, out1_ptr, n_elements,
                         BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    y = tl.load(y_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    grad_out = tl.load(grad_out_ptr + offsets, mask=mask, other=1.0).to(tl.float32)
    gx = grad_out / y
    gy = -gx * (x / y)
    tl.store(out0_ptr + offsets, gx.to(out0_ptr.dtype.element_ty), mask=mask)
    tl.store(out1_ptr + offsets, gy.to(out1_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, y: torch.Tensor,
        grad_out: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    x, y, grad_out = x.contiguous(), y.contiguous(), grad_out.contiguous()
    out0 = torch.empty_like(x)
    out1 = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _div_backward_kernel[(triton.cdiv(n, BLOCK),)](x, y, grad_out, out0, out1, n, BLOCK=BLOCK,
                                                   num_warps=4)
    return out0, out1
