import torch
import triton
import triton.language as tl


@triton.jit
def _nucleus_kernel(logits_ptr, temp_ptr, top_p_ptr, max_ptr, cut_ptr, V, stride_r,
                    BLOCK_V: tl.constexpr):
    # Per row: w = exp(logit / T - max), W = sum w; the nucleus is {w >= t} for the largest t
    # with sum_{w >= t} w >= top_p * W (a token is kept iff less than top_p of the probability
    # lies strictly above it). t is found by bisection over the bits of w (positive float32
    # bits order like the floats): 30 passes over the row, no sort.
    row = tl.program_id(0)
    temp = tl.load(temp_ptr + row).to(tl.float32)
    top_p = tl.load(top_p_ptr + row).to(tl.float32)
    m = tl.full((BLOCK_V,), float("-inf"), tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        x = tl.load(logits_ptr + row * stride_r + cols, mask=cols < V,
                    other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, x / temp)
    row_max = tl.max(m, axis=0)
    total = tl.zeros((BLOCK_V,), tl.float32)
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        x = tl.load(logits_ptr + row * stride_r + cols, mask=cols < V,
                    other=float("-inf")).to(tl.float32)
        total += tl.exp(x / temp - row_max)
    target = top_p * tl.sum(total, axis=0)
    lo = tl.full((1,), 0, tl.int32)
    hi = tl.full((1,), 0x3F800000, tl.int32)  # the bits of 1.0, the largest w
    for _ in range(30):
        mid = lo + (hi - lo + 1) // 2
        mass = tl.zeros((1, BLOCK_V), tl.float32)
        for v0 in range(0, V, BLOCK_V):
            cols = v0 + tl.arange(0, BLOCK_V)
            x = tl.load(logits_ptr + row * stride_r + cols, mask=cols < V,
                        other=float("-inf")).to(tl.float32)
            w = tl.exp(x / temp - row_max)
            bits = w.to(tl.int32, bitcast=True)
            mass += tl.where(bits[None, :] >= mid[:, None], w[None, :], 0.0)
        ok = tl.sum(mass, axis=1) >= target
        lo = tl.where(ok, mid, lo)
        hi = tl.where(ok, hi, mid - 1)
    tl.store(cut_ptr + row + tl.arange(0, 1), lo)
    tl.store(max_ptr + row, row_max)


@triton.jit
def _top_p_sample_kernel(logits_ptr, temp_ptr, max_ptr, cut_ptr, out_ptr, V, S, stride_r, seed,
                         BLOCK_S: tl.constexpr, BLOCK_V: tl.constexpr):
    # Gumbel-max over the nucleus: sample j of a row is argmax of logit / T + g over tokens with
    # w >= t and w > 0, g = -log(-log(u)) from a Philox uniform keyed on
    # (seed, (row * S + j) * V + v): a draw of softmax(logits / T) renormalized over the nucleus.
    row = tl.program_id(0)
    samples = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    smask = samples < S
    temp = tl.load(temp_ptr + row).to(tl.float32)
    row_max = tl.load(max_ptr + row)
    cut = tl.load(cut_ptr + row)
    best = tl.full((BLOCK_S,), float("-inf"), tl.float32)
    arg = tl.zeros((BLOCK_S,), tl.int32)
    base = (row.to(tl.int64) * S + samples) * V
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        vmask = cols < V
        x = tl.load(logits_ptr + row * stride_r + cols, mask=vmask,
                    other=float("-inf")).to(tl.float32)
        scaled = x / temp
        w = tl.exp(scaled - row_max)
        kept = vmask & (w.to(tl.int32, bitcast=True) >= cut) & (w > 0)
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
    _top_p_sample_kernel[(m, triton.cdiv(s, BLOCK_S))](logits, temp, row_max, cut, out, v, s,
                                                       logits.stride(0), seed,
                                                       BLOCK_S=BLOCK_S, BLOCK_V=BLOCK_V)
    return out
