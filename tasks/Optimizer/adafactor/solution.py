import torch
import triton
import triton.language as tl


@triton.jit
def _row_kernel(g_ptr, row_ptr, N, beta2t, one_minus_beta2t, eps1, BLOCK_N: tl.constexpr):
    # One program per row: row[i] := beta2t * row[i] + (1 - beta2t) * mean_j(g**2 + eps1).
    i = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        g = tl.load(g_ptr + i * N + cols, mask=cols < N, other=0.0).to(tl.float32)
        acc += tl.where(cols < N, g * g + eps1, 0.0)
    mean = tl.sum(acc, axis=0) / N
    old = tl.load(row_ptr + i)
    tl.store(row_ptr + i, beta2t * old + one_minus_beta2t * mean)


@triton.jit
def _col_kernel(g_ptr, col_ptr, M, N, beta2t, one_minus_beta2t, eps1, BLOCK_M: tl.constexpr,
                BLOCK_N: tl.constexpr):
    # One program per block of columns, over tiles of BLOCK_M rows: each lane adds M / BLOCK_M
    # values, then a tree sum (a plain loop over thousands of rows loses float32 accuracy).
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    ok = cols < N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        inside = (rows[:, None] < M) & ok[None, :]
        g = tl.load(g_ptr + rows[:, None].to(tl.int64) * N + cols[None, :], mask=inside,
                    other=0.0).to(tl.float32)
        acc += tl.where(inside, g * g + eps1, 0.0)
    total = tl.sum(acc, axis=0)
    old = tl.load(col_ptr + cols, mask=ok, other=1.0)
    tl.store(col_ptr + cols, beta2t * old + one_minus_beta2t * (total / M), mask=ok)


@triton.jit
def _row_mean_kernel(row_ptr, mean_ptr, M, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, M, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        acc += tl.load(row_ptr + idx, mask=idx < M, other=0.0)
    tl.store(mean_ptr, tl.sum(acc, axis=0) / M)


@triton.jit
def _factored_update(g_ptr, row_ptr, col_ptr, mean_ptr, offs, mask, N):
    i = offs // N
    j = offs % N
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    row = tl.load(row_ptr + i, mask=mask, other=1.0)
    col = tl.load(col_ptr + j, mask=mask, other=1.0)
    row_mean = tl.load(mean_ptr)
    return g / tl.sqrt(row / row_mean) / tl.sqrt(col)


@triton.jit
def _sumsq_kernel(g_ptr, row_ptr, col_ptr, mean_ptr, partial_ptr, n, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = _factored_update(g_ptr, row_ptr, col_ptr, mean_ptr, offs, mask, N)
    u = tl.where(mask, u, 0.0)
    tl.store(partial_ptr + pid, tl.sum(u * u, axis=0))


@triton.jit
def _clip_kernel(partial_ptr, denom_ptr, num_blocks, n, clip_threshold, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, num_blocks, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + idx, mask=idx < num_blocks, other=0.0)
    rms = tl.sqrt(tl.sum(acc, axis=0) / n)
    tl.store(denom_ptr, tl.maximum(rms / clip_threshold, 1.0))


@triton.jit
def _apply_kernel(p_ptr, g_ptr, row_ptr, col_ptr, mean_ptr, denom_ptr, n, N, lr,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = _factored_update(g_ptr, row_ptr, col_ptr, mean_ptr, offs, mask, N)
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    p = p - lr * (u / tl.load(denom_ptr))
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)


def run(p, g, exp_avg_sq_row, exp_avg_sq_col, step: int):
    lr, eps1, clip_threshold, decay_rate = 1e-3, 1e-30, 1.0, -0.8
    beta2t = 1.0 - step ** decay_rate
    M, N = p.shape
    n = p.numel()
    BLOCK = 1024
    blocks = triton.cdiv(n, BLOCK)
    scratch = torch.empty((2 + blocks,), dtype=torch.float32, device=p.device)
    mean, denom, partial = scratch[0:1], scratch[1:2], scratch[2:]
    # The states are written in place first (each program owns its rows or columns); the
    # parameter last, once the clipping denominator is known.
    # 1 - beta2t in double precision on the host: beta2t is near 1, and 1 - beta2t taken in
    # float32 from a float32 beta2t is off by ~1e-5 relative (the new mean's weight).
    _row_kernel[(M,)](g, exp_avg_sq_row, N, beta2t, 1.0 - beta2t, eps1, BLOCK_N=256,
                      num_warps=4)
    _col_kernel[(triton.cdiv(N, 64),)](g, exp_avg_sq_col, M, N, beta2t, 1.0 - beta2t, eps1,
                                       BLOCK_M=32, BLOCK_N=64, num_warps=4)
    _row_mean_kernel[(1,)](exp_avg_sq_row, mean, M, BLOCK=256, num_warps=4)
    _sumsq_kernel[(blocks,)](g, exp_avg_sq_row, exp_avg_sq_col, mean, partial, n, N,
                             BLOCK=BLOCK, num_warps=4)
    _clip_kernel[(1,)](partial, denom, blocks, n, clip_threshold, BLOCK=64, num_warps=2)
    _apply_kernel[(blocks,)](p, g, exp_avg_sq_row, exp_avg_sq_col, mean, denom, n, N, lr,
                             BLOCK=BLOCK, num_warps=4)
