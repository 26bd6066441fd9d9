import torch
import triton
import triton.language as tl


@triton.jit
def _rope_neox_bwd_kernel(pos_ptr, g_ptr, cache_ptr, out_ptr, NH, D, stride_t, stride_col,
                          BLOCK_H: tl.constexpr, HALF: tl.constexpr):
    # Program (token t, block of BLOCK_H heads): rotate grad_out by the negative angle.
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
    g1 = tl.load(g_ptr + t * stride_t + col1 * stride_col, mask=mask, other=0.0).to(tl.float32)
    g2 = tl.load(g_ptr + t * stride_t + col2 * stride_col, mask=mask, other=0.0).to(tl.float32)
    row = out_ptr + t * NH * D
    tl.store(row + col1, (g1 * c + g2 * s).to(out_ptr.dtype.element_ty), mask=mask)
    tl.store(row + col2, (g2 * c - g1 * s).to(out_ptr.dtype.element_ty), mask=mask)


def run(positions, x, cos_sin_cache, grad_out):
    T, HD = x.shape
    D = cos_sin_cache.shape[1]
    NH = HD // D
    positions = positions.contiguous()
    cache = cos_sin_cache.contiguous()
    out = torch.empty((T, HD), dtype=x.dtype, device=x.device)
    HALF = triton.next_power_of_2(D // 2)
    BLOCK_H = max(1, min(triton.next_power_of_2(NH), 1024 // HALF))
    _rope_neox_bwd_kernel[(T, triton.cdiv(NH, BLOCK_H))](positions, grad_out, cache, out, NH, D,
                                                        grad_out.stride(0), grad_out.stride(1),
                                                        BLOCK_H=BLOCK_H, HALF=HALF,
                                                        num_warps=4)
    return out
