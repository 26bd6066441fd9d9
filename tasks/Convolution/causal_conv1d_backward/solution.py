import torch
import triton
import triton.language as tl


@triton.jit
def _dz_kernel(x_ptr, w_ptr, b_ptr, g_ptr, dz_ptr, D, L, KW,
               BLOCK: tl.constexpr, KWP: tl.constexpr):
    # dz = grad_out * silu'(z) for one (b, d) row and a block of positions, z recomputed
    bd = tl.program_id(0).to(tl.int64)
    d = bd % D
    ts = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ks = tl.arange(0, KWP)
    kmask = ks < KW
    src = ts[:, None] - (KW - 1) + ks[None, :]
    m2 = (ts < L)[:, None] & kmask[None, :] & (src >= 0)
    xs = tl.load(x_ptr + bd * L + src, mask=m2, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + d * KW + ks, mask=kmask, other=0.0).to(tl.float32)
    z = tl.load(b_ptr + d).to(tl.float32) + tl.sum(xs * w[None, :], axis=1)
    tmask = ts < L
    g = tl.load(g_ptr + bd * L + ts, mask=tmask, other=0.0).to(tl.float32)
    # silu'(z) = s + z * s * (1 - s); s * (1 - s) = e / (1 + e)^2, e = exp(-|z|)
    e = tl.exp(-tl.abs(z))
    s = tl.where(z >= 0.0, 1.0, e) / (1.0 + e)
    tl.store(dz_ptr + bd * L + ts, g * (s + z * (e / ((1.0 + e) * (1.0 + e)))), mask=tmask)


@triton.jit
def _conv_bwd_kernel(x_ptr, w_ptr, dz_ptr, dx_ptr, dw_ptr, db_ptr, B, D, L, KW,
                     BLOCK: tl.constexpr, KWP: tl.constexpr):
    # one program per channel: grad_x of its rows, and its grad_weight / grad_bias summed in a
    # fixed order (no atomics)
    d = tl.program_id(0).to(tl.int64)
    ks = tl.arange(0, KWP)
    kmask = ks < KW
    w = tl.load(w_ptr + d * KW + ks, mask=kmask, other=0.0).to(tl.float32)
    acc_w = tl.zeros([BLOCK, KWP], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK], dtype=tl.float32)
    for b in range(0, B):
        row = (b * D + d) * L
        for start in range(0, L, BLOCK):
            us = start + tl.arange(0, BLOCK)
            umask = us < L
            fwd = us[:, None] + (KW - 1) - ks[None, :]
            dzs = tl.load(dz_ptr + row + fwd, mask=umask[:, None] & kmask[None, :] & (fwd < L),
                          other=0.0)
            dx = tl.sum(dzs * w[None, :], axis=1)
            tl.store(dx_ptr + row + us, dx.to(dx_ptr.dtype.element_ty), mask=umask)
            dz = tl.load(dz_ptr + row + us, mask=umask, other=0.0)
            src = us[:, None] - (KW - 1) + ks[None, :]
            xs = tl.load(x_ptr + row + src, mask=umask[:, None] & kmask[None, :] & (src >= 0),
                         other=0.0).to(tl.float32)
            acc_w += dz[:, None] * xs
            acc_b += dz
    tl.store(dw_ptr + d * KW + ks, tl.sum(acc_w, axis=0).to(dw_ptr.dtype.element_ty), mask=kmask)
    tl.store(db_ptr + d, tl.sum(acc_b, axis=0).to(db_ptr.dtype.element_ty))


def run(x, weight, bias, grad_out):
    B, D, L = x.shape
    KW = weight.shape[1]
    x, weight, bias, grad_out = (t.contiguous() for t in (x, weight, bias, grad_out))
    dz = torch.empty((B, D, L), dtype=torch.float32, device=x.device)
    KWP = triton.next_power_of_2(KW)
    BLOCK = min(triton.next_power_of_2(L), 1024)
    _dz_kernel[(B * D, triton.cdiv(L, BLOCK))](x, weight, bias, grad_out, dz, D, L, KW,
                                              BLOCK=BLOCK, KWP=KWP, num_warps=4)
    dx = torch.empty_like(x)
    dw = torch.empty_like(weight)
    db = torch.empty_like(bias)
    _conv_bwd_kernel[(D,)](x, weight, dz, dx, dw, db, B, D, L, KW, BLOCK=BLOCK, KWP=KWP,
                           num_warps=4)
    return dx, dw, db
