import torch
import triton
import triton.language as tl


@triton.jit
def _bincount_kernel(idx_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    bins = tl.load(idx_ptr + offs, mask=mask, other=0)
    ones = tl.full([BLOCK], 1, dtype=tl.int64)
    tl.atomic_add(out_ptr + bins, ones, mask=mask, sem="relaxed")


def run(idx: torch.Tensor, C: int) -> torch.Tensor:
    N = idx.shape[0]
    idx = idx.contiguous()
    out = torch.zeros((C,), dtype=torch.int64, device=idx.device)
    BLOCK = 2048
    _bincount_kernel[(triton.cdiv(N, BLOCK),)](idx, out, N, BLOCK=BLOCK, num_warps=4)
    return out
