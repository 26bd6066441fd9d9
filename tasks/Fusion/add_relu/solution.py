import torch
import triton
import triton.language as tl


@triton.jit
def _add_relu_kernel(x_ptr, y_ptr, o_ptr, M, N, sxm, sxn, sym, syn, som,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    r64 = rows[:, None].to(tl.int64)
    c64 = cols[None, :].to(tl.int64)
    x = tl.load(x_ptr + r64 * sxm + c64 * sxn, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + r64 * sym + c64 * syn, mask=mask, other=0.0).to(tl.float32)
    out = tl.maximum(x + y, 0.0)
    tl.store(o_ptr + r64 * som + c64, out.to(o_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N = 32, 128
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _add_relu_kernel[grid](x, y, out, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                           out.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return out
