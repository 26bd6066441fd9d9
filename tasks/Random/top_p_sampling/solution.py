import torch
import triton
import triton.language as tl


@triton.jit
def _order_key(x):
    # a float32's bits as an int32 in the floats' order (negatives flipped; -0 as +0, a tie):
    # the nucleus is decided on the logits themselves by integer compares, never on a
    # recomputed weight
    bits = tl.where(x == 0.0, 0.0, x).to(tl.int32, bitcast=True)
    return bits ^ ((bits >> 31) & 0x7FFFFFFF)


@triton.jit
def _nucleus_kernel(logits_ptr, temp_ptr, top_p_ptr, max_ptr, cut_ptr, V, stride_r,
                    BLOCK_V: tl.constexpr):
    # Per row: w = exp(logit / T - max), W = sum w; the nucleus is {logit >= c} for the largest
    # c with sum_{logit >= c} w >= top_p * W (a token is kept iff less than top_p of the
    # probability lies strictly above it). c is found by bisection over the order keys of the
    # logits (32 passes over the row, no sort) and stored as a key: membership is exact, the
    # same in the sampling kernel, compiled or interpreted. A cut on w instead hinged on ulps:
    # ptxas fuses x / T - max into one FFMA here and rounds x / T first in the sampling kernel
    # (where x / T is also the score), so the boundary token's w differed by a few ulps.
    row = tl.program_id(0)
    temp = tl.load(temp_ptr + row).to(tl.float32)
    top_p = tl.load(top_p_ptr + row).to(tl.float32)
    m = tl.full((BLOCK_V,), float("-inf"), tl.float32)
    least = tl.full((BLOCK_V,), float("inf"), tl.float32)
    most = tl.full((BLOCK_V,), float("-inf"), tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        x = tl.load(logits_ptr + row * stride_r + cols, mask=cols < V,
                    other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, x / temp)
        least = tl.minimum(least, tl.where(x > float("-inf"), x, float("inf")))
        most = tl.maximum(most, x)
    row_max = tl.max(m, axis=0)
    total = tl.zeros((BLOCK_V,), tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        x = tl.load(logits_ptr + row * stride_r + cols, mask=cols < V,
                    other=float("-inf")).to(tl.float32)
        total += tl.exp(x / temp - row_max)
    # top_p = 1 keeps every finite logit (no cut above the least): a float32 sum over fewer
    # tokens can reach W too, the smallest weights vanishing in its roundings
    target = tl.where(top_p < 1.0, top_p * tl.sum(total, axis=0), float("inf"))
    # every finite logit is at least the least one: that cut keeps all, so it is the floor
    lo = tl.zeros((1,), tl.int64) + _order_key(tl.min(least, axis=0)).to(tl.int64)
    hi = tl.zeros((1,), tl.int64) + _order_key(tl.max(most, axis=0)).to(tl.int64)
    for _ in range(32):  # hi - lo < 2^32
        mid = lo + (hi - lo + 1) // 2
        mass = tl.zeros((1, BLOCK_V), tl.float32)
        for v0 in range(0, V, BLOCK_V):
            cols = v0 + tl.arange(0, BLOCK_V)
            x = tl.load(logits_ptr + row * stride_r + cols, mask=cols < V,
                        other=float("-inf")).to(tl.float32)
            w = tl.exp(x / temp - row_max)
            key = _order_key(x).to(tl.int64)
            mass += tl.where(key[None, :] >= mid[:, None], w[None, :], 0.0)
        ok = tl.sum(mass, axis=1) >= target
        lo = tl.where(ok, mid, lo)
        hi = tl.where(ok, hi, mid - 1)
    tl.store(cut_ptr + row + tl.arange(0, 1), lo.to(tl.int32))
    tl.store(max_ptr + row, row_max)


@triton.jit
def _top_p_sample_kernel(logits_ptr, temp_ptr, cut_ptr, out_ptr, V, S, stride_r, seed,
                         BLOCK_S: tl.constexpr, BLOCK_V: tl.constexpr):
    # Gumbel-max over the nucleus: sample j of a row is argmax of logit / T + g over tokens with
    # a logit at least the cut's, g = -log(-log(u)) from a Philox uniform keyed on
    # (seed, (row * S + j) * V + v): a draw of softmax(logits / T) renormalized over the nucleus.
    row = tl.program_id(0)
    samples = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    smask = samples < S
    temp = tl.load(temp_ptr + row).to(tl.float32)
    cut = tl.load(cut_ptr + row)  # the boundary logit's order key (the nucleus kernel's)
    best = tl.full((BLOCK_S,), float("-inf"), tl.float32)
    arg = tl.zeros((BLOCK_S,), tl.int32)
    base = (row.to(tl.int64) * S + samples) * V
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        vmask = cols < V
        x = tl.load(logits_ptr + row * stride_r + cols, mask=vmask,
                    other=float("-inf")).to(tl.float32)
        scaled = x / temp
        kept = vmask & (_order_key(x) >= cut)  # integer compares: no rounding decides it
        u = tl.maximum(tl.rand(seed, base[:, None] + cols[None, :]), 1e-30)
        score = scaled[None, :] - tl.log(-tl.log(u))
        score = tl.where(kept[None, :], score, float("-inf"))
        chunk_best = tl.max(score, axis=1)
        chunk_arg = tl.argmax(score, axis=1)
        better = chunk_best > best
        arg = tl.where(better, v0 + chunk_arg, arg)
        best = tl.where(better, chunk_best, best)
    tl.store(out_ptr + row.to(tl.int64) * S + samples, arg.to(tl.int64), mask=smask)


def run(logits: torch.Tensor, temperature: torch.Tensor, top_p: torch.Tensor, s: int,
        seed: int) -> torch.Tensor:
    m, v = logits.shape
    temp = temperature.contiguous()
    p = top_p.contiguous()
    row_max = torch.empty((m,), device=logits.device, dtype=torch.float32)
    cut = torch.empty((m,), device=logits.device, dtype=torch.int32)
    out = torch.empty((m, s), device=logits.device, dtype=torch.int64)
    BLOCK_S, BLOCK_V = 16, 256
    _nucleus_kernel[(m,)](logits, temp, p, row_max, cut, v, logits.stride(0), BLOCK_V=1024)
    _top_p_sample_kernel[(m, triton.cdiv(s, BLOCK_S))](logits, temp, cut, out, v, s,
                                                       logits.stride(0), seed,
                                                       BLOCK_S=BLOCK_S, BLOCK_V=BLOCK_V)
    return out
