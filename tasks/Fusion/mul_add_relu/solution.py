import torch
import triton
import triton.language as tl


@triton.jit
def _mul_add_relu_kernel(x_ptr, y_ptr, z_ptr, o_ptr, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    z = tl.load(z_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = tl.maximum(x * y + z, 0.0)
    tl.store(o_ptr + offs, out.to(o_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _mul_add_relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, z, out, n, BLOCK=BLOCK, num_warps=4)
    return out
