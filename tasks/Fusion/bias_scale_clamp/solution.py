import torch
import triton
import triton.language as tl


@triton.jit
def _bias_scale_clamp_kernel(x_ptr, b_ptr, o_ptr, n_elements, N, scale, lo, hi,
                             BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs % N, mask=mask, other=0.0).to(tl.float32)
    h = (x + b) * scale
    out = tl.minimum(tl.maximum(h, lo), hi)
    tl.store(o_ptr + offs, out.to(o_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, b: torch.Tensor, scale: float, lo: float, hi: float) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    n = M * N
    BLOCK = 1024
    _bias_scale_clamp_kernel[(triton.cdiv(n, BLOCK),)](x, b, out, n, N, scale, lo, hi,
                                                       BLOCK=BLOCK, num_warps=4)
    return out
