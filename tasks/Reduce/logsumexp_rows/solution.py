import torch
import triton
import triton.language as tl


@triton.jit
def _lse_rows_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    # Online logsumexp: per-lane running max m and running sum s of exp(x - m).
    m = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_row + cols * stride_xn, mask=cols < N, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        seen = m_new > -float("inf")
        m_safe = tl.where(seen, m_new, 0.0)
        s = tl.where(seen, s * tl.exp(m - m_safe) + tl.exp(x - m_safe), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
    tl.store(out_ptr + row, (row_max + tl.log(total)).to(out_ptr.dtype.element_ty))


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), dtype=x.dtype, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 4096)
    _lse_rows_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), BLOCK_N=BLOCK_N,
                           num_warps=8 if BLOCK_N >= 2048 else 4)
    return out
