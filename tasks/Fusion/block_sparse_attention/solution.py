import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _block_sparse_attn_kernel(q_ptr, k_ptr, v_ptr, layout_ptr, o_ptr, H, S, D, NB, scale,
                              BS: tl.constexpr, BLOCK_D: tl.constexpr):
    # one program per (query block, b, h); key blocks whose layout bit is 0 are skipped whole
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    h = pid_bh % H
    base = pid_bh.to(tl.int64) * S * D
    offs_m = pid_m * BS + tl.arange(0, BS)
    offs_n = tl.arange(0, BS)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    m_mask = offs_m < S
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :],
                mask=m_mask[:, None] & d_mask[None, :], other=0.0)
    qk_scale = scale * LOG2E
    m_i = tl.full([BS], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BS], dtype=tl.float32)
    acc = tl.zeros([BS, BLOCK_D], dtype=tl.float32)
    row = layout_ptr + (h * NB + pid_m).to(tl.int64) * NB
    for kb in range(0, NB):
        if tl.load(row + kb) != 0:
            cols = kb * BS + offs_n
            n_mask = cols < S
            kt = tl.load(k_ptr + base + cols[None, :] * D + offs_d[:, None],
                         mask=n_mask[None, :] & d_mask[:, None], other=0.0)
            s = tl.dot(q, kt, input_precision="ieee") * qk_scale
            s = tl.where(n_mask[None, :], s, -float("inf"))
            m_new = tl.maximum(m_i, tl.max(s, axis=1))
            alpha = tl.exp2(m_i - m_new)
            p = tl.exp2(s - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, axis=1)
            v = tl.load(v_ptr + base + cols[:, None] * D + offs_d[None, :],
                        mask=n_mask[:, None] & d_mask[None, :], other=0.0)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
            m_i = m_new
    l_i = tl.where(l_i > 0, l_i, 1.0)  # no visible key block: acc is 0, so is the row
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=m_mask[:, None] & d_mask[None, :])


def run(q, k, v, layout, block_size, scale):
    B, H, S, D = q.shape
    NB = layout.shape[-1]
    o = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    grid = (NB, B * H)
    _block_sparse_attn_kernel[grid](q, k, v, layout, o, H, S, D, NB, scale, BS=block_size,
                                    BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    return o
