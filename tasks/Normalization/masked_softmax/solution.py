import torch
import triton
import triton.language as tl


@triton.jit
def _masked_softmax_kernel(x_ptr, m_ptr, out_ptr, N, sxm, sxn, smm, smn,
                           BLOCK_N: tl.constexpr, SINGLE_PASS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * sxm
    m_row = m_ptr + row * smm
    o_row = out_ptr + row * N
    NEG_INF: tl.constexpr = -float("inf")
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK_N)
        inb = cols < N
        keep = tl.load(m_row + cols * smn, mask=inb, other=0) != 0
        x = tl.load(x_row + cols * sxn, mask=inb, other=0.0).to(tl.float32)
        x = tl.where(keep, x, NEG_INF)
        mx = tl.max(x, axis=0)
        e = tl.where(keep, tl.exp(x - mx), 0.0)
        denom = tl.sum(e, axis=0)
        # a fully masked row has denom 0: write zeros
        inv = tl.where(denom > 0.0, 1.0 / tl.where(denom > 0.0, denom, 1.0), 0.0)
        tl.store(o_row + cols, (e * inv).to(out_ptr.dtype.element_ty), mask=inb)
    else:
        m = tl.full([BLOCK_N], NEG_INF, dtype=tl.float32)
        s = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            inb = cols < N
            keep = tl.load(m_row + cols * smn, mask=inb, other=0) != 0
            x = tl.load(x_row + cols * sxn, mask=inb, other=0.0).to(tl.float32)
            x = tl.where(keep, x, NEG_INF)
            m_new = tl.maximum(m, x)
            seen = m_new > NEG_INF
            m_safe = tl.where(seen, m_new, 0.0)
            s = tl.where(seen, s * tl.exp(m - m_safe) + tl.exp(x - m_safe), 0.0)
            m = m_new
        mx = tl.max(m, axis=0)
        mx_safe = tl.where(mx > NEG_INF, mx, 0.0)
        denom = tl.sum(tl.where(m > NEG_INF, s * tl.exp(m - mx_safe), 0.0), axis=0)
        inv = tl.where(denom > 0.0, 1.0 / tl.where(denom > 0.0, denom, 1.0), 0.0)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            inb = cols < N
            keep = tl.load(m_row + cols * smn, mask=inb, other=0) != 0
            x = tl.load(x_row + cols * sxn, mask=inb, other=0.0).to(tl.float32)
            e = tl.where(keep, tl.exp(tl.where(keep, x, mx_safe) - mx_safe), 0.0)
            tl.store(o_row + cols, (e * inv).to(out_ptr.dtype.element_ty), mask=inb)


def run(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    MAX_BLOCK = 8192
    BLOCK_N = min(triton.next_power_of_2(N), MAX_BLOCK)
    num_warps = 4 if BLOCK_N <= 2048 else (8 if BLOCK_N <= 4096 else 16)
    _masked_softmax_kernel[(M,)](x, mask, out, N, x.stride(0), x.stride(1), mask.stride(0),
                                 mask.stride(1), BLOCK_N=BLOCK_N, SINGLE_PASS=N <= MAX_BLOCK,
                                 num_warps=num_warps)
    return out
