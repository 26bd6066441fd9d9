import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _mla_decode_kernel(q_ptr, c_ptr, bt_ptr, lens_ptr, o_ptr, H, DL, DR, BS, MAXB, scale,
                       BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_DL: tl.constexpr,
                       BLOCK_DR: tl.constexpr, CHUNK_D: tl.constexpr):
    # one program per (sequence, head tile): the heads are the rows of the query tile, so each
    # gathered latent tile [BLOCK_N, DL] serves all of them, as key and as value
    b = tl.program_id(0)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    h_mask = heads < H
    W = DL + DR
    offs_l = tl.arange(0, BLOCK_DL)
    offs_r = tl.arange(0, BLOCK_DR)
    offs_c = tl.arange(0, CHUNK_D)
    offs_n = tl.arange(0, BLOCK_N)
    l_mask = offs_l < DL
    r_mask = offs_r < DR
    q_row = q_ptr + (b.to(tl.int64) * H + heads[:, None]) * W
    q_pe = tl.load(q_row + DL + offs_r[None, :], mask=h_mask[:, None] & r_mask[None, :],
                   other=0.0)
    length = tl.load(lens_ptr + b)
    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_H], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, BLOCK_DL], dtype=tl.float32)
    for start in range(0, length, BLOCK_N):
        t = start + offs_n
        t_mask = t < length
        blk = tl.load(bt_ptr + b.to(tl.int64) * MAXB + t // BS, mask=t_mask, other=0)
        row = (blk.to(tl.int64) * BS + t % BS) * W
        c = tl.load(c_ptr + row[:, None] + offs_l[None, :],
                    mask=t_mask[:, None] & l_mask[None, :], other=0.0)  # [BLOCK_N, DL]
        kpe = tl.load(c_ptr + row[None, :] + DL + offs_r[:, None],
                      mask=t_mask[None, :] & r_mask[:, None], other=0.0)  # [DR, BLOCK_N]
        # Scores as independent dots over chunks of CHUNK_D latent entries (and the rope part),
        # each scaled, then added: a float32 tl.dot on sm_90 is one FMA chain over its K (no
        # tensor cores), and where one product of q . C dominates (outlier latents x1e2) a
        # 576-long chain rounds at that product's size ~500 times: an H100 put 98 outputs of
        # deepseek-v3-tp8 float32 beyond 4x their sensitivity (52 allowed). Scaled before the
        # sum, no part becomes the next dot's accumulator (Triton folds s + tl.dot(a, b) into
        # tt.dot(a, b, s): one chain again)
        s = tl.dot(q_pe, kpe, input_precision="ieee") * qk_scale
        for d0 in tl.static_range(0, BLOCK_DL, CHUNK_D):
            dc = d0 + offs_c
            qc = tl.load(q_row + dc[None, :], mask=h_mask[:, None] & (dc < DL)[None, :],
                         other=0.0)
            kc = tl.load(c_ptr + row[None, :] + dc[:, None],
                         mask=t_mask[None, :] & (dc < DL)[:, None], other=0.0)  # [CHUNK_D, N]
            s += tl.dot(qc, kc, input_precision="ieee") * qk_scale
        s = tl.where(t_mask[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(c.dtype), c, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + (b.to(tl.int64) * H + heads[:, None]) * DL + offs_l[None, :],
             out.to(o_ptr.dtype.element_ty), mask=h_mask[:, None] & l_mask[None, :])


def run(q, kv_cache, block_tables, seq_lens, kv_lora_rank, scale):
    B, H, W = q.shape
    NB, BS, _ = kv_cache.shape
    DL = kv_lora_rank
    DR = W - DL
    out = torch.empty((B, H, DL), dtype=q.dtype, device=q.device)
    BLOCK_H = 16
    BLOCK_DL = max(16, triton.next_power_of_2(DL))
    BLOCK_DR = max(16, triton.next_power_of_2(DR))
    BLOCK_N = 32 if BLOCK_DL >= 512 else 64
    grid = (B, triton.cdiv(H, BLOCK_H))
    _mla_decode_kernel[grid](q, kv_cache, block_tables, seq_lens, out, H, DL, DR, BS,
                             block_tables.shape[1], scale, BLOCK_H=BLOCK_H, BLOCK_N=BLOCK_N,
                             BLOCK_DL=BLOCK_DL, BLOCK_DR=BLOCK_DR, CHUNK_D=min(64, BLOCK_DL),
                             num_warps=4, num_stages=2)
    return out
