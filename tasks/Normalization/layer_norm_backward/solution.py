import torch
import triton
import triton.language as tl


@triton.jit
def _ln_bwd_kernel(x_ptr, w_ptr, dy_ptr, dx_ptr, pdw_ptr, pdb_ptr, M, N, eps,
                   BLOCK_N: tl.constexpr, SINGLE_PASS: tl.constexpr):
    # Program p handles rows p, p + P, p + 2P, ... and owns row p of the [P, N] float32 partial
    # buffers for grad_weight and grad_bias (no two programs write the same element).
    p = tl.program_id(0)
    P = tl.num_programs(0)
    pw = pdw_ptr + p.to(tl.int64) * N
    pb = pdb_ptr + p.to(tl.int64) * N
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK_N)
        cmask = cols < N
        w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
        dw_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
        db_acc = tl.zeros([BLOCK_N], dtype=tl.float32)
        for i in range(0, tl.cdiv(M - p, P)):
            base = (p.to(tl.int64) + i * P) * N
            x = tl.load(x_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            mean = tl.sum(x, axis=0) / N
            xc = tl.where(cmask, x - mean, 0.0)
            rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / N + eps)
            xhat = xc * rstd
            g = dy * w
            c1 = tl.sum(g * xhat, axis=0) / N
            c2 = tl.sum(g, axis=0) / N
            dx = rstd * (g - c2 - xhat * c1)
            tl.store(dx_ptr + base + cols, dx.to(dx_ptr.dtype.element_ty), mask=cmask)
            dw_acc += dy * xhat
            db_acc += dy
        tl.store(pw + cols, dw_acc, mask=cmask)
        tl.store(pb + cols, db_acc, mask=cmask)
    else:
        for i in range(0, tl.cdiv(M - p, P)):
            base = (p.to(tl.int64) + i * P) * N
            acc = tl.zeros([BLOCK_N], dtype=tl.float32)
            for start in range(0, N, BLOCK_N):
                cols = start + tl.arange(0, BLOCK_N)
                acc += tl.load(x_ptr + base + cols, mask=cols < N, other=0.0).to(tl.float32)
            mean = tl.sum(acc, axis=0) / N
            acc = tl.zeros([BLOCK_N], dtype=tl.float32)
            for start in range(0, N, BLOCK_N):
                cols = start + tl.arange(0, BLOCK_N)
                cmask = cols < N
                x = tl.load(x_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
                xc = tl.where(cmask, x - mean, 0.0)
                acc += xc * xc
            rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
            a1 = tl.zeros([BLOCK_N], dtype=tl.float32)
            a2 = tl.zeros([BLOCK_N], dtype=tl.float32)
            for start in range(0, N, BLOCK_N):
                cols = start + tl.arange(0, BLOCK_N)
                cmask = cols < N
                x = tl.load(x_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
                dy = tl.load(dy_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
                w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
                g = dy * w
                a1 += g * tl.where(cmask, (x - mean) * rstd, 0.0)
                a2 += g
            c1 = tl.sum(a1, axis=0) / N
            c2 = tl.sum(a2, axis=0) / N
            for start in range(0, N, BLOCK_N):
                cols = start + tl.arange(0, BLOCK_N)
                cmask = cols < N
                x = tl.load(x_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
                dy = tl.load(dy_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
                w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
                xhat = (x - mean) * rstd
                dx = rstd * (dy * w - c2 - xhat * c1)
                tl.store(dx_ptr + base + cols, dx.to(dx_ptr.dtype.element_ty), mask=cmask)
                # this program's own partial row: read-modify-write, no other writer
                tl.store(pw + cols, tl.load(pw + cols, mask=cmask, other=0.0) + dy * xhat,
                         mask=cmask)
                tl.store(pb + cols, tl.load(pb + cols, mask=cmask, other=0.0) + dy, mask=cmask)


@triton.jit
def _sum_partials_kernel(pdw_ptr, pdb_ptr, dw_ptr, db_ptr, P, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cmask = cols < N
    dw = tl.zeros([BLOCK], dtype=tl.float32)
    db = tl.zeros([BLOCK], dtype=tl.float32)
    for p in range(0, P):
        dw += tl.load(pdw_ptr + p * N + cols, mask=cmask, other=0.0)
        db += tl.load(pdb_ptr + p * N + cols, mask=cmask, other=0.0)
    tl.store(dw_ptr + cols, dw.to(dw_ptr.dtype.element_ty), mask=cmask)
    tl.store(db_ptr + cols, db.to(db_ptr.dtype.element_ty), mask=cmask)


def run(x: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor):
    M, N = x.shape
    x = x.contiguous()
    weight = weight.contiguous()
    grad_out = grad_out.contiguous()
    dev = x.device
    P = min(M, 256)
    pdw = torch.zeros((P, N), dtype=torch.float32, device=dev)
    pdb = torch.zeros((P, N), dtype=torch.float32, device=dev)
    dx = torch.empty((M, N), dtype=x.dtype, device=dev)
    dw = torch.empty((N,), dtype=x.dtype, device=dev)
    db = torch.empty((N,), dtype=x.dtype, device=dev)
    MAX_BLOCK = 8192
    BLOCK_N = min(triton.next_power_of_2(N), MAX_BLOCK)
    num_warps = 4 if BLOCK_N <= 2048 else (8 if BLOCK_N <= 4096 else 16)
    _ln_bwd_kernel[(P,)](x, weight, grad_out, dx, pdw, pdb, M, N, 1e-5, BLOCK_N=BLOCK_N,
                         SINGLE_PASS=N <= MAX_BLOCK, num_warps=num_warps)
    BLOCK = min(triton.next_power_of_2(N), 256)
    _sum_partials_kernel[(triton.cdiv(N, BLOCK),)](pdw, pdb, dw, db, P, N, BLOCK=BLOCK,
                                                   num_warps=4)
    return dx, dw, db
