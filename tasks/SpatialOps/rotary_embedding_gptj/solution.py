import torch
import triton
import triton.language as tl


@triton.jit
def _rope_gptj_kernel(pos_ptr, x_ptr, cache_ptr, out_ptr, NH, D, R, stride_t, stride_col,
                      BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    # Program (token t, block of BLOCK_H heads), whole heads per row of the tile. Column d of a
    # head belongs to pair d // 2 and is rotated when d < R; its partner is d ^ 1.
    t = tl.program_id(0).to(tl.int64)
    hs = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ds = tl.arange(0, BLOCK_D)
    half = R // 2
    rot = ds < R
    pos = tl.load(pos_ptr + t)
    pair = ds // 2
    c = tl.load(cache_ptr + pos * R + pair, mask=rot, other=1.0)[None, :]
    s = tl.load(cache_ptr + pos * R + half + pair, mask=rot, other=0.0)[None, :]
    mask = (hs < NH)[:, None] & (ds < D)[None, :]
    col = hs.to(tl.int64)[:, None] * D + ds[None, :]
    partner = hs.to(tl.int64)[:, None] * D + (ds ^ 1)[None, :]
    base = x_ptr + t * stride_t
    x = tl.load(base + col * stride_col, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(base + partner * stride_col, mask=mask & rot[None, :], other=0.0).to(tl.float32)
    # even d: x * c - y * s; odd d: x * c + y * s (y is the even partner)
    sign = tl.where((ds % 2) == 0, -1.0, 1.0)[None, :]
    out = x * c + sign * y * s
    tl.store(out_ptr + t * NH * D + col, out.to(out_ptr.dtype.element_ty), mask=mask)


def _apply(positions, x, cache, D):
    T, HD = x.shape
    NH = HD // D
    R = cache.shape[1]
    out = torch.empty((T, HD), dtype=x.dtype, device=x.device)
    BLOCK_D = triton.next_power_of_2(D)
    BLOCK_H = max(1, min(triton.next_power_of_2(NH), 2048 // BLOCK_D))
    _rope_gptj_kernel[(T, triton.cdiv(NH, BLOCK_H))](positions, x, cache, out, NH, D, R,
                                                    x.stride(0), x.stride(1),
                                                    BLOCK_H=BLOCK_H, BLOCK_D=BLOCK_D,
                                                    num_warps=4)
    return out


def run(positions, query, key, cos_sin_cache, head_size: int):
    positions = positions.contiguous()
    cache = cos_sin_cache.contiguous()
    return (_apply(positions, query, cache, head_size), _apply(positions, key, cache, head_size))
