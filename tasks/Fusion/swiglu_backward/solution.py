import torch
import triton
import triton.language as tl


@triton.jit
def _swiglu_bwd_kernel(x_ptr, g_ptr, dx_ptr, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    x_row = x_ptr + row * (2 * N)
    a = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(x_row + N + cols, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    s = 1.0 / (1.0 + tl.exp(-a))
    silu = a * s
    da = g * u * (s + silu * (1.0 - s))
    du = g * silu
    dx_row = dx_ptr + row * (2 * N)
    tl.store(dx_row + cols, da.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dx_row + N + cols, du.to(dx_ptr.dtype.element_ty), mask=mask)


def run(x, grad_out):
    M, two_n = x.shape
    N = two_n // 2
    dx = torch.empty((M, two_n), dtype=x.dtype, device=x.device)
    BLOCK_N = min(1024, triton.next_power_of_2(N))
    _swiglu_bwd_kernel[(M, triton.cdiv(N, BLOCK_N))](x, grad_out, dx, N, BLOCK_N=BLOCK_N,
                                                     num_warps=4)
    return dx
