import torch
import triton
import triton.language as tl


@triton.jit
def _bias_gelu_bwd_kernel(x_ptr, b_ptr, g_ptr, dx_ptr, part_ptr, M, N,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # a [BLOCK_M, BLOCK_N] tile: write dx and this row block's float32 column sums
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None].to(tl.int64) * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    h = x + b[None, :]
    cdf = 0.5 * (1.0 + tl.erf(h * 0.7071067811865476))
    pdf = tl.exp(-0.5 * h * h) * 0.3989422804014327
    dx = tl.where(mask, g * (cdf + h * pdf), 0.0)
    tl.store(dx_ptr + offs, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(part_ptr + pid_m.to(tl.int64) * N + cols, tl.sum(dx, axis=0), mask=cols < N)


@triton.jit
def _column_sum_kernel(part_ptr, db_ptr, P, N, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    # fixed-order sum of the P partial rows: deterministic
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_P, BLOCK_N), dtype=tl.float32)
    for p0 in range(0, P, BLOCK_P):
        p = p0 + tl.arange(0, BLOCK_P)
        mask = (p[:, None] < P) & (cols[None, :] < N)
        acc += tl.load(part_ptr + p[:, None].to(tl.int64) * N + cols[None, :], mask=mask,
                       other=0.0)
    tl.store(db_ptr + cols, tl.sum(acc, axis=0).to(db_ptr.dtype.element_ty), mask=cols < N)


def run(x, b, grad_out):
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    db = torch.empty((N,), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N = 64, 64
    P = triton.cdiv(M, BLOCK_M)
    partial = torch.empty((P, N), dtype=torch.float32, device=x.device)
    _bias_gelu_bwd_kernel[(P, triton.cdiv(N, BLOCK_N))](x, b, grad_out, dx, partial, M, N,
                                                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                                        num_warps=4)
    _column_sum_kernel[(triton.cdiv(N, 64),)](partial, db, P, N, BLOCK_P=16, BLOCK_N=64,
                                              num_warps=4)
    return dx, db
