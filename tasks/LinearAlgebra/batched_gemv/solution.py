import torch
import triton
import triton.language as tl


@triton.jit
def _batched_gemv_kernel(a_ptr, x_ptr, y_ptr, M, N, stride_ab, stride_am, stride_an,
                         stride_xb, stride_yb, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Program (row block, batch p): BLOCK_M rows of a[p] streamed left to right, partial
    # products kept in a float32 register tile and reduced once.
    pid_m = tl.program_id(0)
    p = tl.program_id(1).to(tl.int64)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    mask_m = rows < M
    row_ptrs = a_ptr + p * stride_ab + rows[:, None].to(tl.int64) * stride_am
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        mask_n = cols < N
        a = tl.load(row_ptrs + cols[None, :] * stride_an,
                    mask=mask_m[:, None] & mask_n[None, :], other=0.0).to(tl.float32)
        x = tl.load(x_ptr + p * stride_xb + cols, mask=mask_n, other=0.0).to(tl.float32)
        acc += a * x[None, :]
    tl.store(y_ptr + p * stride_yb + rows, tl.sum(acc, axis=1).to(y_ptr.dtype.element_ty),
             mask=mask_m)


def run(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    B, M, N = a.shape
    x = x.contiguous()
    y = torch.empty((B, M), dtype=a.dtype, device=a.device)
    BLOCK_M = 16
    BLOCK_N = min(256, triton.next_power_of_2(N))
    grid = (triton.cdiv(M, BLOCK_M), B)
    _batched_gemv_kernel[grid](a, x, y, M, N, a.stride(0), a.stride(1), a.stride(2),
                               x.stride(0), y.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                               num_warps=4)
    return y
