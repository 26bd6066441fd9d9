import torch
import triton
import triton.language as tl


@triton.jit
def _capped(x, cap):
    # cap * tanh(x / cap) from exp: tanh(|u|) = (1 - e) / (1 + e) with e = exp(-2|u|) <= 1
    u = x / cap
    e = tl.exp(-2.0 * tl.abs(u))
    t = (1.0 - e) / (1.0 + e)
    return cap * tl.where(u < 0, -t, t)


@triton.jit
def _softcap_softmax_kernel(x_ptr, o_ptr, N, cap, BLOCK: tl.constexpr,
                            SINGLE_PASS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * N
    o_row = o_ptr + row * N
    if SINGLE_PASS:
        cols = tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        z = tl.where(mask, _capped(x, cap), -float("inf"))
        e = tl.exp(z - tl.max(z, axis=0))
        tl.store(o_row + cols, (e / tl.sum(e, axis=0)).to(o_ptr.dtype.element_ty), mask=mask)
    else:
        # long rows: online max and rescaled sum per lane, then a second pass that writes
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
        for start in range(0, N, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(x_row + cols, mask=cols < N, other=0.0).to(tl.float32)
            z = tl.where(cols < N, _capped(x, cap), -float("inf"))
            m_new = tl.maximum(m, z)
            alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m - m_new))
            acc = acc * alpha + tl.where(m_new == -float("inf"), 0.0, tl.exp(z - m_new))
            m = m_new
        row_max = tl.max(m, axis=0)
        denom = tl.sum(tl.where(m == -float("inf"), 0.0, acc * tl.exp(m - row_max)), axis=0)
        inv = 1.0 / denom
        for start in range(0, N, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < N
            x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
            p = tl.exp(_capped(x, cap) - row_max) * inv
            tl.store(o_row + cols, p.to(o_ptr.dtype.element_ty), mask=mask)


def run(x, cap):
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    MAX_BLOCK = 4096
    BLOCK = min(triton.next_power_of_2(N), MAX_BLOCK)
    _softcap_softmax_kernel[(M,)](x, out, N, cap, BLOCK=BLOCK, SINGLE_PASS=N <= MAX_BLOCK,
                                  num_warps=4 if BLOCK <= 1024 else 8)
    return out
