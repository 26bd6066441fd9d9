import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _paged_v1_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, slope_ptr, o_ptr, H, HKV, D, BS,
                     MAXB, scale, X: tl.constexpr, BLOCK_G: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # one program per (sequence, kv head): the query heads of that kv head are the tile's rows
    b = tl.program_id(0)
    g = tl.program_id(1)
    group = H // HKV
    offs_g = tl.arange(0, BLOCK_G)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    g_mask = offs_g < group
    heads = g * group + offs_g
    q = tl.load(q_ptr + (b.to(tl.int64) * H + heads[:, None]) * D + offs_d[None, :],
                mask=g_mask[:, None] & d_mask[None, :], other=0.0)
    slope = tl.load(slope_ptr + heads, mask=g_mask, other=0.0) * LOG2E
    length = tl.load(lens_ptr + b)
    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_G], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_G], dtype=tl.float32)
    acc = tl.zeros([BLOCK_G, BLOCK_D], dtype=tl.float32)
    for start in range(0, length, BLOCK_N):
        t = start + offs_n
        t_mask = t < length
        blk = tl.load(bt_ptr + b.to(tl.int64) * MAXB + t // BS, mask=t_mask, other=0)
        base = blk.to(tl.int64) * HKV + g  # [NB, HKV] index of the (block, kv head) pair
        slot = t % BS
        # key element d: [.., d // X, slot, d % X]; value element d: [.., d, slot]
        k_off = ((base[None, :] * (D // X) + offs_d[:, None] // X) * BS + slot[None, :]) * X \
            + offs_d[:, None] % X
        kt = tl.load(k_ptr + k_off, mask=t_mask[None, :] & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        s += slope[:, None] * (t - length + 1).to(tl.float32)[None, :]
        s = tl.where(t_mask[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v_off = (base[:, None] * D + offs_d[None, :]) * BS + slot[:, None]
        v = tl.load(v_ptr + v_off, mask=t_mask[:, None] & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + (b.to(tl.int64) * H + heads[:, None]) * D + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=g_mask[:, None] & d_mask[None, :])


def run(q, k_cache, v_cache, block_tables, seq_lens, alibi_slopes, scale):
    B, H, D = q.shape
    NB, HKV, DX, BS, X = k_cache.shape
    out = torch.empty((B, H, D), dtype=q.dtype, device=q.device)
    BLOCK_G = max(16, triton.next_power_of_2(H // HKV))
    BLOCK_D = max(16, triton.next_power_of_2(D))
    _paged_v1_kernel[(B, HKV)](q, k_cache, v_cache, block_tables, seq_lens, alibi_slopes, out,
                               H, HKV, D, BS, block_tables.shape[1], scale, X=X,
                               BLOCK_G=BLOCK_G, BLOCK_N=64, BLOCK_D=BLOCK_D, num_warps=4,
                               num_stages=2)
    return out
