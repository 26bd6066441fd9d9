import torch
import triton
import triton.language as tl


@triton.jit
def _pairwise_distance_kernel(a_ptr, b_ptr, out_ptr, D, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < D
        a = tl.load(a_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, a - b + eps, 0.0)
        acc += d * d
    tl.store(out_ptr + row, tl.sqrt(tl.sum(acc, axis=0)).to(out_ptr.dtype.element_ty))


def run(x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
    M, D = x1.shape
    a = x1.contiguous()
    b = x2.contiguous()
    out = torch.empty((M,), dtype=a.dtype, device=a.device)
    BLOCK = min(triton.next_power_of_2(D), 2048)
    _pairwise_distance_kernel[(M,)](a, b, out, D, 1e-6, BLOCK=BLOCK, num_warps=4)
    return out
