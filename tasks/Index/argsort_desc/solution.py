import torch
import triton
import triton.language as tl


@triton.jit
def _compare_exchange(x, idx, s: tl.constexpr, d: tl.constexpr, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr):
    # One step of stage s: a row viewed as [pairs, 2, d]; the two partners of a pair sit on
    # the size-2 axis, so their min and max are two small reductions.
    x4 = tl.reshape(x, [BLOCK_M, BLOCK_N // (2 * d), 2, d])
    lo = tl.min(x4, axis=2, keep_dims=True)
    hi = tl.max(x4, axis=2, keep_dims=True)
    i4 = tl.reshape(idx, [1, BLOCK_N // (2 * d), 2, d])
    is_left = (i4 & d) == 0
    ascending = ((i4 >> s) & 1) == 0  # direction of this element's block in stage s
    x4 = tl.where(is_left == ascending, lo, hi)
    return tl.reshape(x4, [BLOCK_M, BLOCK_N])


@triton.jit
def _bitonic_sort_rows(x, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, LOG_N: tl.constexpr):
    # Ascending bitonic sort of every row of a [BLOCK_M, BLOCK_N] tile (BLOCK_N = 2^LOG_N).
    # The distance d = 2^(s-1-jj) is passed straight to a constexpr parameter: compiled Triton
    # turns a plain local into a tensor and refuses to reassign an annotated constexpr local.
    idx = tl.arange(0, BLOCK_N)
    for s in tl.static_range(1, LOG_N + 1):
        for jj in tl.static_range(0, s):
            x = _compare_exchange(x, idx, s, 1 << (s - 1 - jj), BLOCK_M, BLOCK_N)
    return x


@triton.jit
def _argsort_desc_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                         LOG_N: tl.constexpr):
    # BLOCK_M rows per program. Key = (~x) in the high 32 bits (bitwise not reverses the signed
    # order without overflow) and the column in the low 32 bits: distinct keys whose ascending
    # order is the stable descending order of x.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows < M)[:, None] & (cols < N)[None, :]
    base = rows.to(tl.int64)[:, None] * N
    x = tl.load(x_ptr + base + cols[None, :], mask=mask, other=0)
    key = ((~x).to(tl.int64) << 32) | cols[None, :].to(tl.int64)
    key = tl.where(mask, key, 0x7FFFFFFFFFFFFFFF)  # padding sorts last
    key = _bitonic_sort_rows(key, BLOCK_M, BLOCK_N, LOG_N)
    tl.store(out_ptr + base + cols[None, :], key & 0xFFFFFFFF, mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    x = x.contiguous()
    out = torch.empty((M, N), dtype=torch.int64, device=x.device)
    BLOCK_N = triton.next_power_of_2(N)
    BLOCK_M = max(1, 4096 // BLOCK_N)
    LOG_N = BLOCK_N.bit_length() - 1
    _argsort_desc_kernel[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, BLOCK_M=BLOCK_M,
                                                     BLOCK_N=BLOCK_N, LOG_N=LOG_N, num_warps=8)
    return out
