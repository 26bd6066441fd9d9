import torch
import triton
import triton.language as tl


@triton.jit
def _add_rms_bwd_kernel(h_ptr, w_ptr, dy_ptr, dr_ptr, dh_ptr, pdw_ptr, M, N, eps,
                        BLOCK_N: tl.constexpr):
    # Program p handles rows p, p + P, ... and owns row p of the [P, N] partial grad_weight.
    p = tl.program_id(0)
    P = tl.num_programs(0)
    pw = pdw_ptr + p.to(tl.int64) * N
    for i in range(0, tl.cdiv(M - p, P)):
        base = (p.to(tl.int64) + i * P) * N
        a0 = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            h = tl.load(h_ptr + base + cols, mask=cols < N, other=0.0).to(tl.float32)
            a0 += h * h
        rstd = 1.0 / tl.sqrt(tl.sum(a0, axis=0) / N + eps)
        a1 = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            cmask = cols < N
            h = tl.load(h_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
            a1 += dy * w * h * rstd
        c1 = tl.sum(a1, axis=0) / N
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            cmask = cols < N
            h = tl.load(h_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            dr = tl.load(dr_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
            hhat = h * rstd
            dh = rstd * (dy * w - hhat * c1) + dr
            tl.store(dh_ptr + base + cols, dh.to(dh_ptr.dtype.element_ty), mask=cmask)
            tl.store(pw + cols, tl.load(pw + cols, mask=cmask, other=0.0) + dy * hhat,
                     mask=cmask)


@triton.jit
def _sum_partials_kernel(pdw_ptr, dw_ptr, P, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cmask = cols < N
    dw = tl.zeros([BLOCK], dtype=tl.float32)
    for p in range(0, P):
        dw += tl.load(pdw_ptr + p * N + cols, mask=cmask, other=0.0)
    tl.store(dw_ptr + cols, dw.to(dw_ptr.dtype.element_ty), mask=cmask)


def run(h: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor,
        grad_residual: torch.Tensor):
    M, N = h.shape
    h, weight = h.contiguous(), weight.contiguous()
    grad_out, grad_residual = grad_out.contiguous(), grad_residual.contiguous()
    P = min(M, 256)
    pdw = torch.zeros((P, N), dtype=torch.float32, device=h.device)
    dh = torch.empty((M, N), dtype=h.dtype, device=h.device)
    dw = torch.empty((N,), dtype=h.dtype, device=h.device)
    BLOCK_N = min(triton.next_power_of_2(N), 4096)
    _add_rms_bwd_kernel[(P,)](h, weight, grad_out, grad_residual, dh, pdw, M, N, 1e-6,
                              BLOCK_N=BLOCK_N, num_warps=8 if BLOCK_N >= 2048 else 4)
    BLOCK = min(triton.next_power_of_2(N), 256)
    _sum_partials_kernel[(triton.cdiv(N, BLOCK),)](pdw, dw, P, N, BLOCK=BLOCK, num_warps=4)
    return dh, dw
