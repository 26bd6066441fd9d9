import torch
import triton
import triton.language as tl


@triton.jit
def _geam_kernel(a_ptr, b_ptr, c_ptr, M, N, alpha, beta, stride_am, stride_an,
                 stride_bn, stride_bm, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # The b tile is loaded as a [BLOCK_N, BLOCK_M] block of b's own rows (coalesced) and
    # transposed in registers.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    a = tl.load(a_ptr + rows[:, None].to(tl.int64) * stride_am + cols[None, :] * stride_an,
                mask=mask, other=0.0).to(tl.float32)
    bt = tl.load(b_ptr + cols[:, None].to(tl.int64) * stride_bn + rows[None, :] * stride_bm,
                 mask=(cols[:, None] < N) & (rows[None, :] < M), other=0.0).to(tl.float32)
    c = alpha * a + beta * tl.trans(bt)
    tl.store(c_ptr + rows[:, None].to(tl.int64) * N + cols[None, :],
             c.to(c_ptr.dtype.element_ty), mask=mask)


def run(a: torch.Tensor, b: torch.Tensor, alpha: float, beta: float) -> torch.Tensor:
    M, N = a.shape
    b = b.contiguous()
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _geam_kernel[grid](a, b, c, M, N, float(alpha), float(beta), a.stride(0), a.stride(1),
                       b.stride(0), b.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return c
