import torch
import triton
import triton.language as tl


@triton.jit
def _gate(x, z):
    # silu(z) and silu'(z) = s + z * s * (1 - s); s * (1 - s) = e / (1 + e)^2 with
    # e = exp(-|z|) never overflows
    e = tl.exp(-tl.abs(z))
    s = tl.where(z >= 0.0, 1.0, e) / (1.0 + e)
    return x * z * s, z * s, s + z * (e / ((1.0 + e) * (1.0 + e)))


@triton.jit
def _gated_rms_bwd_kernel(x_ptr, z_ptr, w_ptr, dy_ptr, dx_ptr, dz_ptr, pdw_ptr, M, N, eps,
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
            cmask = cols < N
            x = tl.load(x_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            z = tl.load(z_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            g, _, _ = _gate(x, z)
            a0 += g * g
        rstd = 1.0 / tl.sqrt(tl.sum(a0, axis=0) / N + eps)
        a1 = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            cmask = cols < N
            x = tl.load(x_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            z = tl.load(z_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
            g, _, _ = _gate(x, z)
            a1 += dy * w * g * rstd
        c1 = tl.sum(a1, axis=0) / N
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            cmask = cols < N
            x = tl.load(x_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            z = tl.load(z_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + base + cols, mask=cmask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + cols, mask=cmask, other=0.0).to(tl.float32)
            g, silu, dsilu = _gate(x, z)
            ghat = g * rstd
            dg = rstd * (dy * w - ghat * c1)
            tl.store(dx_ptr + base + cols, (dg * silu).to(dx_ptr.dtype.element_ty), mask=cmask)
            tl.store(dz_ptr + base + cols, (dg * x * dsilu).to(dz_ptr.dtype.element_ty),
                     mask=cmask)
            tl.store(pw + cols, tl.load(pw + cols, mask=cmask, other=0.0) + dy * ghat,
                     mask=cmask)


@triton.jit
def _sum_partials_kernel(pdw_ptr, dw_ptr, P, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cmask = cols < N
    dw = tl.zeros([BLOCK], dtype=tl.float32)
    for p in range(0, P):
        dw += tl.load(pdw_ptr + p * N + cols, mask=cmask, other=0.0)
    tl.store(dw_ptr + cols, dw.to(dw_ptr.dtype.element_ty), mask=cmask)


def run(x: torch.Tensor, z: torch.Tensor, weight: torch.Tensor, grad_out: torch.Tensor):
    M, N = x.shape
    x, z, weight, grad_out = (t.contiguous() for t in (x, z, weight, grad_out))
    P = min(M, 256)
    pdw = torch.zeros((P, N), dtype=torch.float32, device=x.device)
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    dz = torch.empty((M, N), dtype=x.dtype, device=x.device)
    dw = torch.empty((N,), dtype=x.dtype, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(N), 4096)
    _gated_rms_bwd_kernel[(P,)](x, z, weight, grad_out, dx, dz, pdw, M, N, 1e-5,
                                BLOCK_N=BLOCK_N, num_warps=8 if BLOCK_N >= 2048 else 4)
    BLOCK = min(triton.next_power_of_2(N), 256)
    _sum_partials_kernel[(triton.cdiv(N, BLOCK),)](pdw, dw, P, N, BLOCK=BLOCK, num_warps=4)
    return dx, dz, dw
