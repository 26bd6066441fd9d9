import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_dim0_kernel(x_ptr, out_ptr, M, N, stride_m, stride_n,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One program per strip of BLOCK_N columns; walk down the rows with a running max and a
    # rescaled running sum per (row-lane, column), then write exp(x - max) / sum.
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    col_off = cols.to(tl.int64) * stride_n
    m = tl.full([BLOCK_M, BLOCK_N], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows < M)[:, None] & cmask[None, :]
        ptrs = x_ptr + rows.to(tl.int64)[:, None] * stride_m + col_off[None, :]
        x = tl.load(ptrs, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        seen = m_new > -float("inf")
        m_safe = tl.where(seen, m_new, 0.0)
        s = tl.where(seen, s * tl.exp(m - m_safe) + tl.exp(x - m_safe), 0.0)
        m = m_new
    col_max = tl.max(m, axis=0)
    col_max = tl.where(col_max > -float("inf"), col_max, 0.0)  # padding columns only
    denom = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - col_max[None, :]), 0.0), axis=0)
    inv = 1.0 / tl.where(denom > 0.0, denom, 1.0)
    for start in range(0, M, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows < M)[:, None] & cmask[None, :]
        ptrs = x_ptr + rows.to(tl.int64)[:, None] * stride_m + col_off[None, :]
        x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)
        y = tl.exp(x - col_max[None, :]) * inv[None, :]
        o_ptrs = out_ptr + rows.to(tl.int64)[:, None] * N + cols[None, :]
        tl.store(o_ptrs, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 32)
    BLOCK_M = min(triton.next_power_of_2(M), 64)
    _softmax_dim0_kernel[(triton.cdiv(N, BLOCK_N),)](x, out, M, N, x.stride(0), x.stride(1),
                                                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                                     num_warps=4)
    return out
