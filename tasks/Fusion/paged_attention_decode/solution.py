import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _paged_decode_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, o_ptr, H, HKV, D, BS, MAXB,
                         scale, BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr,
                         BLOCK_D: tl.constexpr):
    # one program per (sequence, kv head): the H / HKV query heads sharing that kv head are the
    # rows of one [BLOCK_G, D] tile, so every gathered key/value tile serves all of them
    b = tl.program_id(0)
    g = tl.program_id(1)
    group = H // HKV
    offs_g = tl.arange(0, BLOCK_G)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    g_mask = offs_g < group
    heads = g * group + offs_g
    q_ptrs = q_ptr + (b.to(tl.int64) * H + heads[:, None]) * D + offs_d[None, :]
    q = tl.load(q_ptrs, mask=g_mask[:, None] & d_mask[None, :], other=0.0)
    length = tl.load(lens_ptr + b)

    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_G], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_G], dtype=tl.float32)
    acc = tl.zeros([BLOCK_G, BLOCK_D], dtype=tl.float32)
    for start in range(0, length, BLOCK_N):
        t = start + offs_n
        t_mask = t < length
        blk = tl.load(bt_ptr + b.to(tl.int64) * MAXB + t // BS, mask=t_mask, other=0)
        row = (blk.to(tl.int64) * BS + t % BS) * HKV + g  # row of the [NB*BS*HKV, D] cache
        kt = tl.load(k_ptr + row[None, :] * D + offs_d[:, None],
                     mask=t_mask[None, :] & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        s = tl.where(t_mask[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + row[:, None] * D + offs_d[None, :],
                    mask=t_mask[:, None] & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + (b.to(tl.int64) * H + heads[:, None]) * D + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=g_mask[:, None] & d_mask[None, :])


def run(q, k_cache, v_cache, block_tables, context_lens, scale):
    B, H, D = q.shape
    NB, BS, HKV, _ = k_cache.shape
    MAXB = block_tables.shape[1]
    out = torch.empty((B, H, D), dtype=q.dtype, device=q.device)
    BLOCK_G = max(16, triton.next_power_of_2(H // HKV))
    BLOCK_D = max(16, triton.next_power_of_2(D))
    BLOCK_N = 64
    _paged_decode_kernel[(B, HKV)](q, k_cache, v_cache, block_tables, context_lens, out, H, HKV,
                                   D, BS, MAXB, scale, BLOCK_G=BLOCK_G, BLOCK_N=BLOCK_N,
                                   BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    return out
