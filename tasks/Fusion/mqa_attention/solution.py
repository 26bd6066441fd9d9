import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _mqa_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, H, SQ, SK, D, scale,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # The H heads of a batch share k and v, so the query rows of all heads are stacked into one
    # [H * SQ, D] matrix: a tile of BLOCK_M rows may span heads and reuses every k/v tile.
    pid_m = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    R = H * SQ
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    row_mask = offs_m < R
    q_base = b * R * D
    kv_base = b * SK * D
    q = tl.load(q_ptr + q_base + offs_m[:, None] * D + offs_d[None, :],
                mask=row_mask[:, None] & d_mask[None, :], other=0.0)

    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start_n in range(0, SK, BLOCK_N):
        cols = start_n + offs_n
        kt = tl.load(k_ptr + kv_base + cols[None, :] * D + offs_d[:, None],
                     mask=(cols[None, :] < SK) & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        s = tl.where(cols[None, :] < SK, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv_base + cols[:, None] * D + offs_d[None, :],
                    mask=(cols[:, None] < SK) & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + q_base + offs_m[:, None] * D + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=row_mask[:, None] & d_mask[None, :])


def run(q, k, v, scale):
    B, H, SQ, D = q.shape
    SK = k.shape[1]
    o = torch.empty((B, H, SQ, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(H * SQ, BLOCK_M), B)
    _mqa_fwd_kernel[grid](q, k, v, o, H, SQ, SK, D, scale, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                          BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    return o
