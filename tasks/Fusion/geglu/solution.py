import torch
import triton
import triton.language as tl


@triton.jit
def _gelu_and_mul_kernel(x_ptr, o_ptr, N, stride_x, stride_o, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    a = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(x_ptr + row * stride_x + N + cols, mask=mask, other=0.0).to(tl.float32)
    out = 0.5 * a * (1.0 + tl.erf(a * 0.7071067811865476)) * u
    tl.store(o_ptr + row * stride_o + cols, out.to(o_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, two_n = x.shape
    N = two_n // 2
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_N = min(1024, triton.next_power_of_2(N))
    grid = (M, triton.cdiv(N, BLOCK_N))
    _gelu_and_mul_kernel[grid](x, out, N, x.stride(0), out.stride(0), BLOCK_N=BLOCK_N,
                               num_warps=4)
    return out
