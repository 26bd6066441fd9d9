import torch
import triton
import triton.language as tl


@triton.jit
def _clamp_kernel(x_ptr, lo_ptr, hi_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    lo = tl.load(lo_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    hi = tl.load(hi_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = tl.minimum(tl.maximum(x, lo), hi)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
    x, lo, hi = x.contiguous(), lo.contiguous(), hi.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _clamp_kernel[(triton.cdiv(n, BLOCK),)](x, lo, hi, out, n, BLOCK=BLOCK, num_warps=4)
    return out
