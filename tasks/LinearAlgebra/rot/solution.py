import torch
import triton
import triton.language as tl


@triton.jit
def _rot_kernel(x_ptr, y_ptr, ox_ptr, oy_ptr, M, N, stride_xm, stride_xn, c, s,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One tile of both vectors: read x and y once, write both rotated outputs once.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    r64 = rows[:, None].to(tl.int64)
    x = tl.load(x_ptr + r64 * stride_xm + cols[None, :] * stride_xn, mask=mask, other=0.0)
    y = tl.load(y_ptr + r64 * N + cols[None, :], mask=mask, other=0.0)
    xf, yf = x.to(tl.float32), y.to(tl.float32)
    out = r64 * N + cols[None, :]
    tl.store(ox_ptr + out, (c * xf + s * yf).to(ox_ptr.dtype.element_ty), mask=mask)
    tl.store(oy_ptr + out, (c * yf - s * xf).to(oy_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, y: torch.Tensor, c: float, s: float):
    M, N = x.shape
    yc = y.contiguous()
    ox = torch.empty((M, N), device=x.device, dtype=x.dtype)
    oy = torch.empty((M, N), device=x.device, dtype=x.dtype)
    BLOCK_M, BLOCK_N = 8, 256
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _rot_kernel[grid](x, yc, ox, oy, M, N, x.stride(0), x.stride(1), c, s,
                      BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return ox, oy
