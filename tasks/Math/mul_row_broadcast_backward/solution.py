import torch
import triton
import triton.language as tl


@triton.jit
def _mul_bwd_tile_kernel(x_ptr, w_ptr, g_ptr, dx_ptr, part_ptr, M, N,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # one program per (row block, column block): writes grad_x for the tile and the tile's
    # float32 column sums of grad_out * x into part[row_block, :]
    pid_m = tl.program_id(0)
    rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    mask = (rows[:, None] < M) & cmask[None, :]
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    tl.store(dx_ptr + offs, (g * w[None, :]).to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(part_ptr + pid_m.to(tl.int64) * N + cols, tl.sum(g * x, axis=0), mask=cmask)


@triton.jit
def _column_sum_kernel(part_ptr, dw_ptr, R, N, BLOCK_N: tl.constexpr):
    # fixed-order sum of the R partial rows: deterministic
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for r in range(0, R):
        acc += tl.load(part_ptr + r * N + cols, mask=cmask, other=0.0)
    tl.store(dw_ptr + cols, acc.to(dw_ptr.dtype.element_ty), mask=cmask)


def run(x: torch.Tensor, w: torch.Tensor, grad_out: torch.Tensor):
    x, w, grad_out = x.contiguous(), w.contiguous(), grad_out.contiguous()
    M, N = x.shape
    BLOCK_M, BLOCK_N = 64, 64
    R = triton.cdiv(M, BLOCK_M)
    grad_x = torch.empty_like(x)
    grad_w = torch.empty((N,), dtype=x.dtype, device=x.device)
    part = torch.empty((R, N), dtype=torch.float32, device=x.device)
    _mul_bwd_tile_kernel[(R, triton.cdiv(N, BLOCK_N))](x, w, grad_out, grad_x, part, M, N,
                                                       BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                                       num_warps=4)
    _column_sum_kernel[(triton.cdiv(N, 256),)](part, grad_w, R, N, BLOCK_N=256, num_warps=4)
    return grad_x, grad_w
