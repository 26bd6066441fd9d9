import torch
import triton
import triton.language as tl


@triton.jit
def _colsum_partial_kernel(g_ptr, ws_ptr, M, N, ROWS_PER_SPLIT, stride_gm, stride_gn,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Program (column block, split s): float32 column sums of rows
    # [s * ROWS_PER_SPLIT, (s + 1) * ROWS_PER_SPLIT), written to ws[s, :].
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = cols < N
    row0 = split * ROWS_PER_SPLIT
    row_end = tl.minimum(row0 + ROWS_PER_SPLIT, M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for r in range(row0, row_end, BLOCK_M):
        rows = r + tl.arange(0, BLOCK_M)
        g = tl.load(g_ptr + rows[:, None].to(tl.int64) * stride_gm + cols[None, :] * stride_gn,
                    mask=(rows[:, None] < row_end) & mask_n[None, :], other=0.0)
        acc += g.to(tl.float32)
    tl.store(ws_ptr + split.to(tl.int64) * N + cols, tl.sum(acc, axis=0), mask=mask_n)


@triton.jit
def _colsum_final_kernel(ws_ptr, db_ptr, N, SPLITS, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for s in range(0, SPLITS):
        acc += tl.load(ws_ptr + s * N + cols, mask=mask, other=0.0)
    tl.store(db_ptr + cols, acc.to(db_ptr.dtype.element_ty), mask=mask)


def run(grad_out: torch.Tensor) -> torch.Tensor:
    M, N = grad_out.shape
    db = torch.empty((N,), dtype=grad_out.dtype, device=grad_out.device)
    BLOCK_M = 32
    BLOCK_N = min(128, triton.next_power_of_2(N))
    col_blocks = triton.cdiv(N, BLOCK_N)
    # Enough row splits for ~1000 programs, each at least 128 rows.
    splits = max(1, min(triton.cdiv(1024, col_blocks), triton.cdiv(M, 128)))
    rows_per_split = triton.cdiv(triton.cdiv(M, splits), BLOCK_M) * BLOCK_M
    splits = triton.cdiv(M, rows_per_split)
    ws = torch.empty((splits, N), dtype=torch.float32, device=grad_out.device)
    _colsum_partial_kernel[(col_blocks, splits)](grad_out, ws, M, N, rows_per_split,
                                                 grad_out.stride(0), grad_out.stride(1),
                                                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    FIN_BLOCK = min(1024, triton.next_power_of_2(N))
    _colsum_final_kernel[(triton.cdiv(N, FIN_BLOCK),)](ws, db, N, splits, BLOCK_N=FIN_BLOCK)
    return db
