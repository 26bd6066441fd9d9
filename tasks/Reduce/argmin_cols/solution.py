import torch
import triton
import triton.language as tl


@triton.jit
def _argmin_cols_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One program per strip of BLOCK_N columns, walking down the rows in order. Every
    # (row-lane, column) keeps its earliest minimum (strict < replaces); the smallest row index
    # among the lanes holding the column minimum wins.
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    best = tl.full([BLOCK_M, BLOCK_N], float("inf"), dtype=tl.float32)
    best_idx = tl.full([BLOCK_M, BLOCK_N], 2147483647, dtype=tl.int32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows < M)[:, None] & cmask[None, :]
        ptrs = x_ptr + rows.to(tl.int64)[:, None] * stride_m + cols.to(tl.int64)[None, :] * stride_n
        x = tl.load(ptrs, mask=mask, other=float("inf")).to(tl.float32)
        take = (x < best) & mask
        best = tl.where(take, x, best)
        best_idx = tl.where(take, rows[:, None], best_idx)
    m = tl.min(best, axis=0)
    idx = tl.min(tl.where(best == m[None, :], best_idx, 2147483647), axis=0)
    tl.store(out_ptr + cols, idx.to(tl.int64), mask=cmask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((N,), dtype=torch.int64, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 32)
    BLOCK_M = min(triton.next_power_of_2(M), 64)
    _argmin_cols_kernel[(triton.cdiv(N, BLOCK_N),)](x, out, M, N, x.stride(0), x.stride(1),
                                                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                                    num_warps=4)
    return out
