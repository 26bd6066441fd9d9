import torch
import triton
import triton.language as tl


@triton.jit
def _rope_gptj_bwd_kernel(pos_ptr, g_ptr, cache_ptr, out_ptr, NH, D, R,
                          BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    # Program (token t, block of BLOCK_H heads): every column j of a head reads its pair
    # partner j ^ 1 and the angle of pair j // 2; columns j >= R pass grad_out through.
    t = tl.program_id(0).to(tl.int64)
    hs = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    js = tl.arange(0, BLOCK_D)
    half = R // 2
    rot = js < R
    pair = tl.where(rot, js // 2, 0)
    pos = tl.load(pos_ptr + t)
    c = tl.load(cache_ptr + pos * R + pair, mask=rot, other=1.0)[None, :]
    s = tl.load(cache_ptr + pos * R + half + pair, mask=rot, other=0.0)[None, :]
    mask = (hs < NH)[:, None] & (js < D)[None, :]
    base = t * NH * D + hs.to(tl.int64)[:, None] * D
    g = tl.load(g_ptr + base + js[None, :], mask=mask, other=0.0).to(tl.float32)
    partner = tl.where(rot, js ^ 1, js)
    gp = tl.load(g_ptr + base + partner[None, :], mask=mask, other=0.0).to(tl.float32)
    # even column: ga * c + gb * s; odd column: gb * c - ga * s
    sign = tl.where((js % 2) == 0, 1.0, -1.0)[None, :]
    out = tl.where(rot[None, :], g * c + sign * gp * s, g)
    tl.store(out_ptr + base + js[None, :], out.to(out_ptr.dtype.element_ty), mask=mask)


def run(positions, x, cos_sin_cache, head_size, grad_out):
    T, HD = x.shape
    D = head_size
    R = cos_sin_cache.shape[1]
    NH = HD // D
    positions, cache = positions.contiguous(), cos_sin_cache.contiguous()
    grad_out = grad_out.contiguous()
    out = torch.empty((T, HD), dtype=x.dtype, device=x.device)
    BLOCK_D = triton.next_power_of_2(D)
    BLOCK_H = max(1, min(triton.next_power_of_2(NH), 2048 // BLOCK_D))
    _rope_gptj_bwd_kernel[(T, triton.cdiv(NH, BLOCK_H))](positions, grad_out, cache, out, NH,
                                                        D, R, BLOCK_H=BLOCK_H,
                                                        BLOCK_D=BLOCK_D, num_warps=4)
    return out
