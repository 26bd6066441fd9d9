import torch
import triton
import triton.language as tl


@triton.jit
def _one_hot_kernel(idx_ptr, out_ptr, N, C, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    rmask = rows < N
    mask = rmask[:, None] & (cols < C)[None, :]
    cls = tl.load(idx_ptr + rows, mask=rmask, other=-1)
    val = (cols[None, :].to(tl.int64) == cls[:, None]).to(tl.int64)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * C + cols[None, :], val, mask=mask)


def run(idx: torch.Tensor, C: int) -> torch.Tensor:
    N = idx.shape[0]
    idx = idx.contiguous()
    out = torch.empty((N, C), dtype=torch.int64, device=idx.device)
    BLOCK_C = min(triton.next_power_of_2(C), 1024)
    BLOCK_N = max(1, 4096 // BLOCK_C)
    grid = (triton.cdiv(N, BLOCK_N), triton.cdiv(C, BLOCK_C))
    _one_hot_kernel[grid](idx, out, N, C, BLOCK_N=BLOCK_N, BLOCK_C=BLOCK_C, num_warps=4)
    return out
