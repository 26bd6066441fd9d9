import torch
import triton
import triton.language as tl


@triton.jit
def _adaptive_max_pool1d_kernel(x_ptr, val_ptr, idx_ptr, C, L, OUT, KMAX, stride_n, stride_c,
                                stride_l, BLOCK_O: tl.constexpr, BLOCK_K: tl.constexpr):
    # Output i is the maximum of x[start, end), start = floor(i * L / OUT), end = ceil((i + 1) *
    # L / OUT), and the position of its first occurrence: chunks are taken left to right,
    # tl.argmax keeps the first of equal values inside a chunk, and a later chunk replaces the
    # best only when strictly larger (-0.0 == +0.0 is a tie, as for the reference).
    row = tl.program_id(0)
    n = row // C
    c = row % C
    o = tl.program_id(1) * BLOCK_O + tl.arange(0, BLOCK_O)
    omask = o < OUT
    start = (o * L) // OUT
    end = ((o + 1) * L + OUT - 1) // OUT
    base = x_ptr + n.to(tl.int64) * stride_n + c.to(tl.int64) * stride_c
    best = tl.full((BLOCK_O,), float("-inf"), tl.float32)
    arg = start.to(tl.int64)
    for k0 in range(0, KMAX, BLOCK_K):
        k = k0 + tl.arange(0, BLOCK_K)
        pos = start[:, None] + k[None, :]
        m = omask[:, None] & (pos < end[:, None])
        v = tl.load(base + pos * stride_l, mask=m, other=float("-inf")).to(tl.float32)
        v = tl.where(m, v, float("-inf"))
        chunk_best = tl.max(v, axis=1)
        chunk_arg = tl.argmax(v, axis=1).to(tl.int64) + k0
        better = chunk_best > best
        arg = tl.where(better, start.to(tl.int64) + chunk_arg, arg)
        best = tl.where(better, chunk_best, best)
    value = tl.load(base + arg * stride_l, mask=omask)  # the element itself, bit for bit
    out = row.to(tl.int64) * OUT + o
    tl.store(val_ptr + out, value, mask=omask)
    tl.store(idx_ptr + out, arg, mask=omask)


def run(x: torch.Tensor, out_len: int):
    n, c, length = x.shape
    values = torch.empty((n, c, out_len), device=x.device, dtype=x.dtype)
    indices = torch.empty((n, c, out_len), device=x.device, dtype=torch.int64)
    kmax = -(-length // out_len) + 1  # the longest window
    BLOCK_O = min(64, triton.next_power_of_2(out_len))
    BLOCK_K = min(128, triton.next_power_of_2(kmax))
    grid = (n * c, triton.cdiv(out_len, BLOCK_O))
    _adaptive_max_pool1d_kernel[grid](x, values, indices, c, length, out_len, kmax,
                                      x.stride(0), x.stride(1), x.stride(2), BLOCK_O=BLOCK_O,
                                      BLOCK_K=BLOCK_K)
    return values, indices
