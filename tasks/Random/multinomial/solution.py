import torch
import triton
import triton.language as tl


@triton.jit
def _total_kernel(w_ptr, total_ptr, V, stride_r, BLOCK_V: tl.constexpr):
    # The row's running sum, accumulated exactly as the sampling kernel accumulates it.
    row = tl.program_id(0)
    carry = 0.0
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        w = tl.load(w_ptr + row * stride_r + cols, mask=cols < V, other=0.0).to(tl.float32)
        carry = tl.max(carry + tl.cumsum(w, axis=0), axis=0)
    tl.store(total_ptr + row, carry)


@triton.jit
def _multinomial_kernel(w_ptr, total_ptr, out_ptr, V, S, stride_r, seed,
                        BLOCK_S: tl.constexpr, BLOCK_V: tl.constexpr):
    # Inverse-CDF sampling: sample j of a row draws u (Philox keyed on (seed, row * S + j)) and
    # takes the first category of positive weight whose running sum exceeds u * total.
    row = tl.program_id(0)
    samples = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    smask = samples < S
    total = tl.load(total_ptr + row)
    target = tl.rand(seed, row.to(tl.int64) * S + samples) * total
    best = tl.full((BLOCK_S,), 2147483647, tl.int32)
    last = -1
    carry = 0.0
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        w = tl.load(w_ptr + row * stride_r + cols, mask=cols < V, other=0.0).to(tl.float32)
        cum = carry + tl.cumsum(w, axis=0)
        carry = tl.max(cum, axis=0)
        hit = (cum[None, :] > target[:, None]) & (w[None, :] > 0)
        first = tl.min(tl.where(hit, cols[None, :], 2147483647), axis=1)
        best = tl.minimum(best, first)
        last = tl.maximum(last, tl.max(tl.where(w > 0, cols, -1), axis=0))
    # u * total rounded up to total: no running sum exceeds it; take the last positive weight.
    best = tl.where(best == 2147483647, last, best)
    tl.store(out_ptr + row.to(tl.int64) * S + samples, best.to(tl.int64), mask=smask)


def run(weights: torch.Tensor, s: int, seed: int) -> torch.Tensor:
    w = weights.contiguous()
    m, v = w.shape
    total = torch.empty((m,), device=w.device, dtype=torch.float32)
    out = torch.empty((m, s), device=w.device, dtype=torch.int64)
    BLOCK_V = 512
    BLOCK_S = 32
    _total_kernel[(m,)](w, total, v, w.stride(0), BLOCK_V=BLOCK_V)
    _multinomial_kernel[(m, triton.cdiv(s, BLOCK_S))](w, total, out, v, s, w.stride(0), seed,
                                                      BLOCK_S=BLOCK_S, BLOCK_V=BLOCK_V)
    return out
