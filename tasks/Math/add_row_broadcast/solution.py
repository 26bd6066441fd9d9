import torch
import triton
import triton.language as tl


@triton.jit
def _add_row_kernel(x_ptr, b_ptr, out_ptr, M, N, stride_xm, stride_xn, alpha,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < M
    cmask = cols < N
    mask = rmask[:, None] & cmask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xm + cols[None, :] * stride_xn, mask=mask,
                other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    y = x + alpha * b[None, :]
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], y.to(out_ptr.dtype.element_ty),
             mask=mask)


def run(x: torch.Tensor, bias: torch.Tensor, alpha: float) -> torch.Tensor:
    M, N = x.shape
    bias = bias.contiguous()
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N = 16, 128
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _add_row_kernel[grid](x, bias, out, M, N, x.stride(0), x.stride(1), alpha,
                          BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return out
