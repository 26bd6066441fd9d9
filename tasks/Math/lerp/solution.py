import torch
import triton
import triton.language as tl


@triton.jit
def _lerp_kernel(start_ptr, end_ptr, weight_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    start = tl.load(start_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    end = tl.load(end_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    weight = tl.load(weight_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    diff = end - start
    y = tl.where(tl.abs(weight) < 0.5, start + weight * diff, end - diff * (1.0 - weight))
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(start: torch.Tensor, end: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    start, end, weight = start.contiguous(), end.contiguous(), weight.contiguous()
    out = torch.empty_like(start)
    n = start.numel()
    BLOCK = 1024
    _lerp_kernel[(triton.cdiv(n, BLOCK),)](start, end, weight, out, n, BLOCK=BLOCK, num_warps=4)
    return out
