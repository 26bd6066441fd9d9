import torch
import triton
import triton.language as tl


@triton.jit
def _outer_kernel(x_ptr, y_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_m = rows < M
    mask_n = cols < N
    x = tl.load(x_ptr + rows, mask=mask_m, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + cols, mask=mask_n, other=0.0).to(tl.float32)
    out = x[:, None] * y[None, :]
    tl.store(out_ptr + rows[:, None].to(tl.int64) * N + cols[None, :],
             out.to(out_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    M = x.shape[0]
    N = y.shape[0]
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N = 16, 256
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _outer_kernel[grid](x, y, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return out
