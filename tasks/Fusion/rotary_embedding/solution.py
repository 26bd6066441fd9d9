import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_heads(x_ptr, o_ptr, t, NH, half, st, sh, sd, c, s,
                  BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    offs_i = tl.arange(0, BLOCK_HALF)
    for h0 in range(0, NH, BLOCK_H):
        heads = h0 + tl.arange(0, BLOCK_H)
        mask = (heads[:, None] < NH) & (offs_i[None, :] < half)
        src = x_ptr + t * st + heads[:, None].to(tl.int64) * sh
        x1 = tl.load(src + offs_i[None, :] * sd, mask=mask, other=0.0).to(tl.float32)
        x2 = tl.load(src + (half + offs_i[None, :]) * sd, mask=mask, other=0.0).to(tl.float32)
        dst = o_ptr + (t * NH + heads[:, None].to(tl.int64)) * (2 * half)
        tl.store(dst + offs_i[None, :], (x1 * c - x2 * s).to(o_ptr.dtype.element_ty), mask=mask)
        tl.store(dst + half + offs_i[None, :], (x2 * c + x1 * s).to(o_ptr.dtype.element_ty),
                 mask=mask)


@triton.jit
def _rope_kernel(pos_ptr, q_ptr, k_ptr, cache_ptr, qo_ptr, ko_ptr, H, HKV, half,
                 sqt, sqh, sqd, skt, skh, skd,
                 BLOCK_H: tl.constexpr, BLOCK_HALF: tl.constexpr):
    # one program per token: its cos/sin row is loaded once and applied to all its heads
    t = tl.program_id(0).to(tl.int64)
    pos = tl.load(pos_ptr + t)
    offs_i = tl.arange(0, BLOCK_HALF)
    row = cache_ptr + pos * (2 * half)
    c = tl.load(row + offs_i, mask=offs_i < half, other=0.0).to(tl.float32)[None, :]
    s = tl.load(row + half + offs_i, mask=offs_i < half, other=0.0).to(tl.float32)[None, :]
    _rotate_heads(q_ptr, qo_ptr, t, H, half, sqt, sqh, sqd, c, s, BLOCK_H, BLOCK_HALF)
    _rotate_heads(k_ptr, ko_ptr, t, HKV, half, skt, skh, skd, c, s, BLOCK_H, BLOCK_HALF)


def run(positions, q, k, cos_sin_cache):
    T, H, D = q.shape
    HKV = k.shape[1]
    half = D // 2
    q_out = torch.empty((T, H, D), dtype=q.dtype, device=q.device)
    k_out = torch.empty((T, HKV, D), dtype=k.dtype, device=k.device)
    BLOCK_HALF = triton.next_power_of_2(half)
    BLOCK_H = max(1, min(triton.next_power_of_2(H), 2048 // BLOCK_HALF))
    _rope_kernel[(T,)](positions, q, k, cos_sin_cache, q_out, k_out, H, HKV, half,
                       q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1),
                       k.stride(2), BLOCK_H=BLOCK_H, BLOCK_HALF=BLOCK_HALF, num_warps=4)
    return q_out, k_out
