import torch
import triton
import triton.language as tl


INV_SQRT2 = tl.constexpr(0.7071067811865476)


@triton.jit
def _gelu_and_mul_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, stride_om,
                         BLOCK_N: tl.constexpr):
    # one program per (row, block of BLOCK_N output columns); x may have any strides
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    x_row = x_ptr + row * stride_xm
    a = tl.load(x_row + cols * stride_xn, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(x_row + (cols + N) * stride_xn, mask=mask, other=0.0).to(tl.float32)
    y = 0.5 * a * (1.0 + tl.erf(a * INV_SQRT2)) * b
    tl.store(out_ptr + row * stride_om + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, two_n = x.shape
    N = two_n // 2
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_N = min(1024, triton.next_power_of_2(N))
    grid = (M, triton.cdiv(N, BLOCK_N))
    _gelu_and_mul_kernel[grid](x, out, N, x.stride(0), x.stride(1), out.stride(0),
                               BLOCK_N=BLOCK_N, num_warps=4)
    return out
