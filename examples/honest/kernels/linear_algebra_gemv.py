import torch
import triton
import triton.language as tl


@triton.jit
def _gemv_kernel(a_ptr, x_ptr, y_ptr, M, N, stride_am, stride_an, stride_x,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Each program owns BLOCK_M rows and streams them left to right in BLOCK_N-wide, coalesced
    # chunks; partial products stay in a float32 register tile and are reduced once at the end.
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    mask_m = rows < M
    row_ptrs = a_ptr + rows[:, None].to(tl.int64) * stride_am
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        cols = n0 + tl.arange(0, BLOCK_N)
        mask_n = cols < N
        a = tl.load(row_ptrs + cols[None, :] * stride_an,
                    mask=mask_m[:, None] & mask_n[None, :], other=0.0).to(tl.float32)
        x = tl.load(x_ptr + cols * stride_x, mask=mask_n, other=0.0).to(tl.float32)
        acc += a * x[None, :]
    y = tl.sum(acc, axis=1)
    tl.store(y_ptr + rows, y.to(y_ptr.dtype.element_ty), mask=mask_m)


def run(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    M, N = a.shape
    y = torch.empty((M,), dtype=a.dtype, device=a.device)
    BLOCK_M = 16
    BLOCK_N = min(256, triton.next_power_of_2(N))
    _gemv_kernel[(triton.cdiv(M, BLOCK_M),)](a, x, y, M, N, a.stride(0), a.stride(1),
                                             x.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                             num_warps=4)
    return y
