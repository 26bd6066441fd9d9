import torch
import triton
import triton.language as tl


@triton.jit
def _mse_bwd_kernel(a_ptr, b_ptr, g_ptr, dx_ptr, M, N, sam, san, sbm, sbn, inv_count,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = (tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    cols = (tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int64)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    a = tl.load(a_ptr + rows[:, None] * sam + cols[None, :] * san, mask=mask, other=0.0)
    b = tl.load(b_ptr + rows[:, None] * sbm + cols[None, :] * sbn, mask=mask, other=0.0)
    scale = 2.0 * tl.load(g_ptr) * inv_count
    grad = scale * (a.to(tl.float32) - b.to(tl.float32))
    tl.store(dx_ptr + rows[:, None] * N + cols[None, :], grad.to(dx_ptr.dtype.element_ty),
             mask=mask)


def run(input: torch.Tensor, target: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    M, N = input.shape
    dx = torch.empty((M, N), dtype=input.dtype, device=input.device)
    BLOCK_M, BLOCK_N = 16, 128
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _mse_bwd_kernel[grid](input, target, grad_out, dx, M, N, input.stride(0), input.stride(1),
                          target.stride(0), target.stride(1), 1.0 / (M * N), BLOCK_M=BLOCK_M,
                          BLOCK_N=BLOCK_N, num_warps=4)
    return dx
