import torch
import triton
import triton.language as tl


@triton.jit
def _trmm_lower_kernel(a_ptr, x_ptr, c_ptr, N, R, stride_am, stride_ak, stride_xk, stride_xr,
                       stride_cm, stride_cr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # Row block m reduces over k < (m + 1) * BLOCK_M only; the tiles that cross the diagonal
    # are loaded with the mask k <= i, so garbage above it is never read.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < N
    mask_n = offs_n < R
    k_end = tl.minimum((pid_m + 1) * BLOCK_M, N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k_end, BLOCK_K):
        ks = k0 + offs_k
        a_mask = mask_m[:, None] & (ks[None, :] <= offs_m[:, None])
        a = tl.load(a_ptr + offs_m[:, None].to(tl.int64) * stride_am + ks[None, :] * stride_ak,
                    mask=a_mask, other=0.0)
        x = tl.load(x_ptr + ks[:, None].to(tl.int64) * stride_xk + offs_n[None, :] * stride_xr,
                    mask=(ks[:, None] < N) & mask_n[None, :], other=0.0)
        acc = tl.dot(a, x, acc, input_precision="ieee")
    c_ptrs = c_ptr + offs_m[:, None].to(tl.int64) * stride_cm + offs_n[None, :] * stride_cr
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    N, R = x.shape
    c = torch.empty((N, R), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(N, BLOCK_M), triton.cdiv(R, BLOCK_N))
    _trmm_lower_kernel[grid](a, x, c, N, R, a.stride(0), a.stride(1), x.stride(0), x.stride(1),
                             c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                             BLOCK_K=BLOCK_K, num_warps=4, num_stages=3)
    return c
