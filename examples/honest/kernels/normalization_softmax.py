import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, N, stride_xm, stride_xn, stride_om,
                    BLOCK_N: tl.constexpr, SINGLE_PASS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xm
    o_row = out_ptr + row * stride_om
    if SINGLE_PASS:
        # Whole row in registers: one read, one write.
        cols = tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
        row_max = tl.max(x, axis=0)
        e = tl.exp(x - row_max)
        e = tl.where(mask, e, 0.0)
        denom = tl.sum(e, axis=0)
        tl.store(o_row + cols, (e / denom).to(out_ptr.dtype.element_ty), mask=mask)
    else:
        # Long rows: online softmax (running max and rescaled running sum), then a second
        # pass that writes exp(x - max) / sum.
        m = tl.full([BLOCK_N], -float("inf"), dtype=tl.float32)
        s = tl.zeros([BLOCK_N], dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            x = tl.load(x_row + cols * stride_xn, mask=cols < N,
                        other=-float("inf")).to(tl.float32)
            m_new = tl.maximum(m, x)
            # lanes that have only seen -inf keep a zero sum (avoid inf - inf = nan)
            alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m - m_new))
            p = tl.where(m_new == -float("inf"), 0.0, tl.exp(x - m_new))
            s = s * alpha + p
            m = m_new
        row_max = tl.max(m, axis=0)
        denom = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
        inv = 1.0 / denom
        for start in range(0, N, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = cols < N
            x = tl.load(x_row + cols * stride_xn, mask=mask, other=-float("inf")).to(tl.float32)
            tl.store(o_row + cols, (tl.exp(x - row_max) * inv).to(out_ptr.dtype.element_ty),
                     mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    MAX_BLOCK = 8192
    BLOCK_N = min(triton.next_power_of_2(N), MAX_BLOCK)
    num_warps = 4 if BLOCK_N <= 2048 else (8 if BLOCK_N <= 4096 else 16)
    _softmax_kernel[(M,)](x, out, N, x.stride(0), x.stride(1), out.stride(0),
                          BLOCK_N=BLOCK_N, SINGLE_PASS=N <= MAX_BLOCK, num_warps=num_warps)
    return out
