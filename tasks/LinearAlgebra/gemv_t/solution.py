import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_t_partial_kernel(a_ptr, x_ptr, ws_ptr, M, N, ROWS_PER_SPLIT, stride_am, stride_an,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Program (column block, split s): float32 partial sums of a[i, j] * x[i] over the rows of
    # split s, read as coalesced row segments; a [BLOCK_M, BLOCK_N] register tile is reduced
    # over its rows once at the end.
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = cols < N
    row0 = split * ROWS_PER_SPLIT
    row_end = tl.minimum(row0 + ROWS_PER_SPLIT, M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for r in range(row0, row_end, BLOCK_M):
        rows = r + tl.arange(0, BLOCK_M)
        mask_m = rows < row_end
        a = tl.load(a_ptr + rows[:, None].to(tl.int64) * stride_am + cols[None, :] * stride_an,
                    mask=mask_m[:, None] & mask_n[None, :], other=0.0).to(tl.float32)
        x = tl.load(x_ptr + rows, mask=mask_m, other=0.0).to(tl.float32)
        acc += a * x[:, None]
    tl.store(ws_ptr + split.to(tl.int64) * N + cols, tl.sum(acc, axis=0), mask=mask_n)


@triton.jit
def _sum_splits_kernel(ws_ptr, y_ptr, N, SPLITS, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for s in range(0, SPLITS):
        acc += tl.load(ws_ptr + s * N + cols, mask=mask, other=0.0)
    tl.store(y_ptr + cols, acc.to(y_ptr.dtype.element_ty), mask=mask)


def run(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    M, N = a.shape
    y = torch.empty((N,), dtype=a.dtype, device=a.device)
    BLOCK_M = 16
    BLOCK_N = min(256, triton.next_power_of_2(N))
    col_blocks = triton.cdiv(N, BLOCK_N)
    splits = max(1, min(triton.cdiv(1024, col_blocks), triton.cdiv(M, 64)))
    rows_per_split = triton.cdiv(triton.cdiv(M, splits), BLOCK_M) * BLOCK_M
    splits = triton.cdiv(M, rows_per_split)
    ws = torch.empty((splits, N), dtype=torch.float32, device=a.device)
    _gemv_t_partial_kernel[(col_blocks, splits)](a, x, ws, M, N, rows_per_split,
                                                 a.stride(0), a.stride(1),
                                                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    FIN = min(1024, triton.next_power_of_2(N))
    _sum_splits_kernel[(triton.cdiv(N, FIN),)](ws, y, N, splits, BLOCK_N=FIN)
    return y
