import torch
import triton
import triton.language as tl


@triton.jit
def _addcdiv_kernel(x_ptr, t1_ptr, t2_ptr, out_ptr, n_elements, value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    t1 = tl.load(t1_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    t2 = tl.load(t2_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = x + value * (t1 / t2)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, t1: torch.Tensor, t2: torch.Tensor, value: float) -> torch.Tensor:
    x, t1, t2 = x.contiguous(), t1.contiguous(), t2.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    BLOCK = 1024
    _addcdiv_kernel[(triton.cdiv(n, BLOCK),)](x, t1, t2, out, n, value, BLOCK=BLOCK, num_warps=4)
    return out
