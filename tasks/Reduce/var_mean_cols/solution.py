import torch
import triton
import triton.language as tl


@triton.jit
def _partial_stats(x_ptr, cnt_ptr, mean_ptr, m2_ptr, M, N, stride_m, stride_n,
                   ROWS_PER: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Program (s, strip): rows [s * ROWS_PER, (s + 1) * ROWS_PER) of a strip of columns; two
    # passes over the slice give its count, mean and centered sum of squares (M2).
    s = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    col_off = cols.to(tl.int64)[None, :] * stride_n
    r0 = s * ROWS_PER
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for r in range(0, ROWS_PER, BLOCK_M):
        rows = r0 + r + tl.arange(0, BLOCK_M)
        mask = (rows < M)[:, None] & cmask[None, :]
        acc += tl.load(x_ptr + rows.to(tl.int64)[:, None] * stride_m + col_off, mask=mask,
                       other=0.0).to(tl.float32)
    count = (tl.minimum(M - r0, ROWS_PER)).to(tl.float32)
    mean = tl.sum(acc, axis=0) / count
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for r in range(0, ROWS_PER, BLOCK_M):
        rows = r0 + r + tl.arange(0, BLOCK_M)
        mask = (rows < M)[:, None] & cmask[None, :]
        x = tl.load(x_ptr + rows.to(tl.int64)[:, None] * stride_m + col_off, mask=mask,
                    other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean[None, :], 0.0)
        acc += d * d
    o = s.to(tl.int64) * N + cols
    tl.store(cnt_ptr + o, tl.zeros([BLOCK_N], dtype=tl.float32) + count, mask=cmask)
    tl.store(mean_ptr + o, mean, mask=cmask)
    tl.store(m2_ptr + o, tl.sum(acc, axis=0), mask=cmask)


@triton.jit
def _merge(cnt_ptr, pmean_ptr, m2_ptr, var_ptr, mean_ptr, S, N, M, BLOCK_N: tl.constexpr):
    # Chan's merge, in slice order: deterministic.
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    n = tl.zeros([BLOCK_N], dtype=tl.float32)
    mean = tl.zeros([BLOCK_N], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for s in range(0, S):
        nb = tl.load(cnt_ptr + s * N + cols, mask=cmask, other=1.0)
        mb = tl.load(pmean_ptr + s * N + cols, mask=cmask, other=0.0)
        m2b = tl.load(m2_ptr + s * N + cols, mask=cmask, other=0.0)
        tot = n + nb
        delta = mb - mean
        mean = mean + delta * (nb / tot)
        m2 = m2 + m2b + delta * delta * (n * nb / tot)
        n = tot
    tl.store(var_ptr + cols, (m2 / (M - 1)).to(var_ptr.dtype.element_ty), mask=cmask)
    tl.store(mean_ptr + cols, mean.to(mean_ptr.dtype.element_ty), mask=cmask)


def run(x: torch.Tensor):
    M, N = x.shape
    dev = x.device
    BLOCK_N = min(triton.next_power_of_2(N), 64)
    BLOCK_M = min(triton.next_power_of_2(M), 64)
    ROWS_PER = max(BLOCK_M, triton.next_power_of_2(triton.cdiv(M, 64)))
    S = triton.cdiv(M, ROWS_PER)
    cnt = torch.empty((S, N), dtype=torch.float32, device=dev)
    pmean = torch.empty((S, N), dtype=torch.float32, device=dev)
    m2 = torch.empty((S, N), dtype=torch.float32, device=dev)
    var = torch.empty((N,), dtype=x.dtype, device=dev)
    mean = torch.empty((N,), dtype=x.dtype, device=dev)
    _partial_stats[(S, triton.cdiv(N, BLOCK_N))](x, cnt, pmean, m2, M, N, x.stride(0),
                                                 x.stride(1), ROWS_PER=ROWS_PER,
                                                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    BLOCK_C = min(triton.next_power_of_2(N), 1024)
    _merge[(triton.cdiv(N, BLOCK_C),)](cnt, pmean, m2, var, mean, S, N, M, BLOCK_N=BLOCK_C,
                                       num_warps=4)
    return var, mean
