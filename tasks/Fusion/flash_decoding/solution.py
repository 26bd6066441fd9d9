import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _split_kernel(q_ptr, k_ptr, v_ptr, lens_ptr, pm_ptr, pl_ptr, pacc_ptr, H, HKV, S, D,
                  NUM_SPLITS, CHUNK, scale, BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_D: tl.constexpr):
    # program (b * HKV + g, split): the keys [split * CHUNK, (split + 1) * CHUNK) of one kv
    # head, for all query heads of its group; writes unnormalized partial results (base 2)
    pid_bg = tl.program_id(0)
    split = tl.program_id(1)
    b = pid_bg // HKV
    g = pid_bg % HKV
    group = H // HKV
    offs_g = tl.arange(0, BLOCK_G)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    g_mask = offs_g < group
    heads = g * group + offs_g
    q = tl.load(q_ptr + (b.to(tl.int64) * H + heads[:, None]) * D + offs_d[None, :],
                mask=g_mask[:, None] & d_mask[None, :], other=0.0)
    length = tl.load(lens_ptr + b)
    kv_base = pid_bg.to(tl.int64) * S * D

    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_G], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_G], dtype=tl.float32)
    acc = tl.zeros([BLOCK_G, BLOCK_D], dtype=tl.float32)
    lo = split * CHUNK
    hi = tl.minimum(lo + CHUNK, length)
    for start in range(lo, hi, BLOCK_N):
        t = start + offs_n
        t_mask = t < hi
        kt = tl.load(k_ptr + kv_base + t[None, :] * D + offs_d[:, None],
                     mask=t_mask[None, :] & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        s = tl.where(t_mask[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv_base + t[:, None] * D + offs_d[None, :],
                    mask=t_mask[:, None] & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    # an empty split leaves m = -1e30, l = 0, acc = 0: it weighs nothing in the combination
    part = (b.to(tl.int64) * H + heads) * NUM_SPLITS + split  # [BLOCK_G] partial index
    tl.store(pm_ptr + part, m_i, mask=g_mask)
    tl.store(pl_ptr + part, l_i, mask=g_mask)
    tl.store(pacc_ptr + part[:, None] * D + offs_d[None, :], acc,
             mask=g_mask[:, None] & d_mask[None, :])


@triton.jit
def _combine_kernel(pm_ptr, pl_ptr, pacc_ptr, o_ptr, D, NUM_SPLITS,
                    BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    # one program per (b, h): rescale the partials to the global maximum, in split order
    bh = tl.program_id(0).to(tl.int64)
    offs_s = tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, BLOCK_D)
    s_mask = offs_s < NUM_SPLITS
    m = tl.load(pm_ptr + bh * NUM_SPLITS + offs_s, mask=s_mask, other=-1.0e30)
    l = tl.load(pl_ptr + bh * NUM_SPLITS + offs_s, mask=s_mask, other=0.0)
    acc = tl.load(pacc_ptr + (bh * NUM_SPLITS + offs_s[:, None]) * D + offs_d[None, :],
                  mask=s_mask[:, None] & (offs_d[None, :] < D), other=0.0)
    m_max = tl.max(m, axis=0)
    w = tl.exp2(m - m_max)
    total = tl.sum(l * w, axis=0)
    out = tl.sum(acc * w[:, None], axis=0) / total
    tl.store(o_ptr + bh * D + offs_d, out.to(o_ptr.dtype.element_ty), mask=offs_d < D)


def run(q, k, v, seq_lens, scale):
    B, H, D = q.shape
    HKV, S = k.shape[1], k.shape[2]
    out = torch.empty((B, H, D), dtype=q.dtype, device=q.device)
    CHUNK = 256
    NUM_SPLITS = triton.cdiv(S, CHUNK)
    pm = torch.empty((B, H, NUM_SPLITS), dtype=torch.float32, device=q.device)
    pl = torch.empty((B, H, NUM_SPLITS), dtype=torch.float32, device=q.device)
    pacc = torch.empty((B, H, NUM_SPLITS, D), dtype=torch.float32, device=q.device)
    BLOCK_G = max(16, triton.next_power_of_2(H // HKV))
    BLOCK_D = max(16, triton.next_power_of_2(D))
    _split_kernel[(B * HKV, NUM_SPLITS)](q, k, v, seq_lens, pm, pl, pacc, H, HKV, S, D,
                                         NUM_SPLITS, CHUNK, scale, BLOCK_G=BLOCK_G, BLOCK_N=64,
                                         BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    BLOCK_S = triton.next_power_of_2(NUM_SPLITS)
    _combine_kernel[(B * H,)](pm, pl, pacc, out, D, NUM_SPLITS, BLOCK_S=BLOCK_S,
                              BLOCK_D=BLOCK_D, num_warps=4)
    return out
