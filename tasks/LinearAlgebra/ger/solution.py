import torch
import triton
import triton.language as tl


@triton.jit
def _ger_kernel(a_ptr, x_ptr, y_ptr, out_ptr, M, N, alpha, stride_am, stride_an,
                stride_om, stride_on, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_m = rows < M
    mask_n = cols < N
    mask = mask_m[:, None] & mask_n[None, :]
    a = tl.load(a_ptr + rows[:, None].to(tl.int64) * stride_am + cols[None, :] * stride_an,
                mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + rows, mask=mask_m, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + cols, mask=mask_n, other=0.0).to(tl.float32)
    out = a + alpha * x[:, None] * y[None, :]
    tl.store(out_ptr + rows[:, None].to(tl.int64) * stride_om + cols[None, :] * stride_on,
             out.to(out_ptr.dtype.element_ty), mask=mask)


def run(a: torch.Tensor, x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    M, N = a.shape
    out = torch.empty((M, N), dtype=a.dtype, device=a.device)
    BLOCK_M, BLOCK_N = 32, 128
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _ger_kernel[grid](a, x, y, out, M, N, float(alpha), a.stride(0), a.stride(1),
                      out.stride(0), out.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                      num_warps=4)
    return out
