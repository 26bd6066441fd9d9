import torch
import triton
import triton.language as tl


@triton.jit
def _order_key(x):
    # float32 -> int32 with the same order (negative floats: flip the magnitude bits).
    bits = x.to(tl.int32, bitcast=True)
    return tl.where(bits >= 0, bits, bits ^ 0x7FFFFFFF)


@triton.jit
def _kth_kernel(logits_ptr, k_ptr, kth_ptr, V, stride_r, BLOCK_V: tl.constexpr):
    # The row's k-th largest logit as an order key: the largest t with #{key >= t} >= k, found
    # by bisection over the 2^32 keys (32 passes over the row, no sort).
    row = tl.program_id(0)
    k = tl.load(k_ptr + row + tl.arange(0, 1))
    lo = tl.full((1,), -2147483648, tl.int64)
    hi = tl.full((1,), 2147483647, tl.int64)
    for _ in range(32):
        mid = lo + (hi - lo + 1) // 2
        count = tl.zeros((1,), tl.int64)
        for v0 in range(0, V, BLOCK_V):
            cols = v0 + tl.arange(0, BLOCK_V)
            x = tl.load(logits_ptr + row * stride_r + cols, mask=cols < V,
                        other=float("-inf")).to(tl.float32)
            key = _order_key(x).to(tl.int64)
            hit = (key[None, :] >= mid[:, None]) & (cols[None, :] < V)
            count += tl.sum(hit.to(tl.int64), axis=1)
        ok = count >= k
        lo = tl.where(ok, mid, lo)
        hi = tl.where(ok, hi, mid - 1)
    tl.store(kth_ptr + row + tl.arange(0, 1), lo)


@triton.jit
def _top_k_sample_kernel(logits_ptr, temp_ptr, kth_ptr, out_ptr, V, S, stride_r, seed,
                         BLOCK_S: tl.constexpr, BLOCK_V: tl.constexpr):
    # Gumbel-max over the kept tokens: sample j of a row is argmax of logit / T + g over tokens
    # at or above the k-th largest, g = -log(-log(u)) from a Philox uniform keyed on
    # (seed, (row * S + j) * V + v): a draw of softmax(logits / T) renormalized over the top-k.
    row = tl.program_id(0)
    samples = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
    smask = samples < S
    temp = tl.load(temp_ptr + row).to(tl.float32)
    kth = tl.load(kth_ptr + row)
    best = tl.full((BLOCK_S,), float("-inf"), tl.float32)
    arg = tl.zeros((BLOCK_S,), tl.int32)
    base = (row.to(tl.int64) * S + samples) * V
    for v0 in range(0, V, BLOCK_V):
        cols = v0 + tl.arange(0, BLOCK_V)
        vmask = cols < V
        x = tl.load(logits_ptr + row * stride_r + cols, mask=vmask,
                    other=float("-inf")).to(tl.float32)
        kept = vmask & (_order_key(x).to(tl.int64) >= kth) & (x > float("-inf"))
        u = tl.maximum(tl.rand(seed, base[:, None] + cols[None, :]), 1e-30)
        score = (x / temp)[None, :] - tl.log(-tl.log(u))
        score = tl.where(kept[None, :], score, float("-inf"))
        chunk_best = tl.max(score, axis=1)
        chunk_arg = tl.argmax(score, axis=1)
        better = chunk_best > best
        arg = tl.where(better, v0 + chunk_arg, arg)
        best = tl.where(better, chunk_best, best)
    tl.store(out_ptr + row.to(tl.int64) * S + samples, arg.to(tl.int64), mask=smask)


def run(logits: torch.Tensor, temperature: torch.Tensor, top_k: torch.Tensor, s: int,
        seed: int) -> torch.Tensor:
    m, v = logits.shape
    temp = temperature.contiguous()
    k = top_k.contiguous()
    kth = torch.empty((m,), device=logits.device, dtype=torch.int64)
    out = torch.empty((m, s), device=logits.device, dtype=torch.int64)
    BLOCK_S, BLOCK_V = 16, 256
    _kth_kernel[(m,)](logits, k, kth, v, logits.stride(0), BLOCK_V=1024)
    _top_k_sample_kernel[(m, triton.cdiv(s, BLOCK_S))](logits, temp, kth, out, v, s,
                                                       logits.stride(0), seed,
                                                       BLOCK_S=BLOCK_S, BLOCK_V=BLOCK_V)
    return out
