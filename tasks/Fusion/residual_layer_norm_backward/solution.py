import torch
import triton
import triton.language as tl


@triton.jit
def _ln_bwd_rows_kernel(x_ptr, r_ptr, w_ptr, g_ptr, dx_ptr, pw_ptr, pb_ptr, M, N, eps,
                        ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    # each program owns ROWS consecutive rows: writes their dx and its own float32 partial
    # column sums for dweight and dbias (summed in a fixed order by the second kernel)
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    cmask = cols < N
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
    acc_w = tl.zeros([BLOCK_N], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK_N], dtype=tl.float32)
    for r in range(0, ROWS):
        row = pid * ROWS + r
        if row < M:
            base = row.to(tl.int64) * N
            x = tl.load(x_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            res = tl.load(r_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            g = tl.load(g_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            h = x + res
            mean = tl.sum(h, axis=0) / N
            d = tl.where(cmask, h - mean, 0.0)
            rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / N + eps)
            xhat = d * rstd
            gw = g * w
            c1 = tl.sum(gw, axis=0) / N
            c2 = tl.sum(gw * xhat, axis=0) / N
            dx = rstd * (gw - c1 - xhat * c2)
            tl.store(dx_ptr + base + cols, dx.to(dx_ptr.dtype.element_ty), mask=cmask)
            acc_w += g * xhat
            acc_b += g
    tl.store(pw_ptr + pid.to(tl.int64) * N + cols, acc_w, mask=cmask)
    tl.store(pb_ptr + pid.to(tl.int64) * N + cols, acc_b, mask=cmask)


@triton.jit
def _column_sum_kernel(part_ptr, out_ptr, P, N, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_P, BLOCK_N), dtype=tl.float32)
    for p0 in range(0, P, BLOCK_P):
        p = p0 + tl.arange(0, BLOCK_P)
        mask = (p[:, None] < P) & (cols[None, :] < N)
        acc += tl.load(part_ptr + p[:, None].to(tl.int64) * N + cols[None, :], mask=mask,
                       other=0.0)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty), mask=cols < N)


def run(x, residual, weight, bias, grad_out):
    M, N = x.shape
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    dw = torch.empty((N,), dtype=x.dtype, device=x.device)
    db = torch.empty((N,), dtype=x.dtype, device=x.device)
    ROWS = 32
    P = triton.cdiv(M, ROWS)
    part_w = torch.empty((P, N), dtype=torch.float32, device=x.device)
    part_b = torch.empty((P, N), dtype=torch.float32, device=x.device)
    BLOCK_N = triton.next_power_of_2(N)
    num_warps = 4 if BLOCK_N <= 2048 else (8 if BLOCK_N <= 4096 else 16)
    _ln_bwd_rows_kernel[(P,)](x, residual, weight, grad_out, dx, part_w, part_b, M, N, 1e-5,
                              ROWS=ROWS, BLOCK_N=BLOCK_N, num_warps=num_warps)
    grid = (triton.cdiv(N, 64),)
    _column_sum_kernel[grid](part_w, dw, P, N, BLOCK_P=16, BLOCK_N=64, num_warps=4)
    _column_sum_kernel[grid](part_b, db, P, N, BLOCK_P=16, BLOCK_N=64, num_warps=4)
    return dx, dw, db
