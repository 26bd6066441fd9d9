import torch
import triton
import triton.language as tl


@triton.jit
def _rope_neox_kernel(pos_ptr, x_ptr, cache_ptr, out_ptr, NH, D, stride_t, stride_col,
                      BLOCK_H: tl.constexpr, HALF: tl.constexpr):
    # Program (token t, block of BLOCK_H heads): the token's cos/sin row is loaded once and
    # applied to both halves of every head.
    t = tl.program_id(0).to(tl.int64)
    hs = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ks = tl.arange(0, HALF)
    half = D // 2
    kmask = ks < half
    pos = tl.load(pos_ptr + t)
    c = tl.load(cache_ptr + pos * D + ks, mask=kmask, other=0.0)[None, :]
    s = tl.load(cache_ptr + pos * D + half + ks, mask=kmask, other=0.0)[None, :]
    mask = (hs < NH)[:, None] & kmask[None, :]
    col1 = hs.to(tl.int64)[:, None] * D + ks[None, :]
    col2 = col1 + half
    x1 = tl.load(x_ptr + t * stride_t + col1 * stride_col, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + t * stride_t + col2 * stride_col, mask=mask, other=0.0).to(tl.float32)
    o1 = x1 * c - x2 * s
    o2 = x2 * c + x1 * s
    row = out_ptr + t * NH * D
    tl.store(row + col1, o1.to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(row + col2, o2.to(out_ptr.dtype.element_ty), mask=mask)


def _apply(positions, x, cache, D):
    T, HD = x.shape
    NH = HD // D
    out = torch.empty((T, HD), dtype=x.dtype, device=x.device)
    HALF = triton.next_power_of_2(D // 2)
    BLOCK_H = max(1, min(triton.next_power_of_2(NH), 1024 // HALF))
    _rope_neox_kernel[(T, triton.cdiv(NH, BLOCK_H))](positions, x, cache, out, NH, D,
                                                    x.stride(0), x.stride(1),
                                                    BLOCK_H=BLOCK_H, HALF=HALF, num_warps=4)
    return out


def run(positions, query, key, cos_sin_cache):
    D = cos_sin_cache.shape[1]
    positions = positions.contiguous()
    cache = cos_sin_cache.contiguous()
    return _apply(positions, query, cache, D), _apply(positions, key, cache, D)
