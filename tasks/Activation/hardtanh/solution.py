import torch
import triton
import triton.language as tl


@triton.jit
def _hardtanh_kernel(x_ptr, out_ptr, n_elements, min_val, max_val, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = tl.minimum(tl.maximum(x, min_val), max_val)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, min_val: float, max_val: float) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _hardtanh_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, min_val, max_val, BLOCK=BLOCK, num_warps=4)
    return out
