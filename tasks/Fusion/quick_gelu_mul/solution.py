import torch
import triton
import triton.language as tl


@triton.jit
def _quick_gelu_mul_kernel(x_ptr, g_ptr, o_ptr, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = x / (1.0 + tl.exp(-1.702 * x)) * g
    tl.store(o_ptr + offs, out.to(o_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _quick_gelu_mul_kernel[(triton.cdiv(n, BLOCK),)](x, gate, out, n, BLOCK=BLOCK, num_warps=4)
    return out
