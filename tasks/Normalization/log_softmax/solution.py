import torch
import triton
import triton.language as tl


@triton.jit
def _log_softmax_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn,
                        BLOCK_N: tl.constexpr, SINGLE_PASS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * N
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
        m = tl.max(x, axis=0)
        s = tl.sum(tl.where(mask, tl.exp(x - m), 0.0), axis=0)
        lse = m + tl.log(s)
        tl.store(o_row + cols, (x - lse).to(out_ptr.dtype.element_ty), mask=mask)
    else:
        # Online logsumexp: per-lane running max and rescaled running sum.
        m = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
        s = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            x = tl.load(x_row + cols * stride_xn, mask=cols < N,
                        other=-float("inf")).to(tl.float32)
            m_new = tl.maximum(m, x)
            seen = m_new > -float("inf")
            s = tl.where(seen, s * tl.exp(m - m_new) + tl.exp(x - m_new), 0.0)
            m = m_new
        row_max = tl.max(m, axis=0)
        total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
        lse = row_max + tl.log(total)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = cols < N
            x = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
            tl.store(o_row + cols, (x - lse).to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    MAX_BLOCK = 8192
    BLOCK_N = min(triton.next_power_of_2(N), MAX_BLOCK)
    num_warps = 4 if BLOCK_N <= 2048 else (8 if BLOCK_N <= 4096 else 16)
    _log_softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1),
                              BLOCK_N=BLOCK_N, SINGLE_PASS=N <= MAX_BLOCK, num_warps=num_warps)
    return out
