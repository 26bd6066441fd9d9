import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _rope_attn_fwd_kernel(q_ptr, k_ptr, v_ptr, cos_ptr, sin_ptr, o_ptr, S, D, HALF, scale,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_HALF: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * S * D
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_i = tl.arange(0, BLOCK_HALF)
    offs_d = tl.arange(0, BLOCK_D)
    i_mask = offs_i < HALF
    m_mask = offs_m < S

    # rotate the query tile once: two halves [BLOCK_M, HALF], rounded to the input dtype
    qm = m_mask[:, None] & i_mask[None, :]
    q_row = q_ptr + base + offs_m[:, None] * D
    q1 = tl.load(q_row + offs_i[None, :], mask=qm, other=0.0)
    q2 = tl.load(q_row + HALF + offs_i[None, :], mask=qm, other=0.0).to(tl.float32)
    cq = tl.load(cos_ptr + offs_m[:, None] * HALF + offs_i[None, :], mask=qm, other=0.0)
    sq = tl.load(sin_ptr + offs_m[:, None] * HALF + offs_i[None, :], mask=qm, other=0.0)
    dt = q1.dtype
    q1 = q1.to(tl.float32)
    qa = (q1 * cq - q2 * sq).to(dt)
    qb = (q2 * cq + q1 * sq).to(dt)

    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        km = i_mask[:, None] & (cols[None, :] < S)  # transposed tiles [HALF, BLOCK_N]
        k_col = k_ptr + base + cols[None, :] * D
        k1 = tl.load(k_col + offs_i[:, None], mask=km, other=0.0).to(tl.float32)
        k2 = tl.load(k_col + HALF + offs_i[:, None], mask=km, other=0.0).to(tl.float32)
        ck = tl.load(cos_ptr + cols[None, :] * HALF + offs_i[:, None], mask=km, other=0.0)
        sk = tl.load(sin_ptr + cols[None, :] * HALF + offs_i[:, None], mask=km, other=0.0)
        ka = (k1 * ck - k2 * sk).to(dt)
        kb = (k2 * ck + k1 * sk).to(dt)
        s = tl.dot(qa, ka, input_precision="ieee")
        s = tl.dot(qb, kb, s, input_precision="ieee") * qk_scale
        s = tl.where((cols[None, :] <= offs_m[:, None]) & (cols[None, :] < S), s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + cols[:, None] * D + offs_d[None, :],
                    mask=(cols[:, None] < S) & (offs_d[None, :] < D), other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    l_i = tl.where(l_i > 0, l_i, 1.0)
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=m_mask[:, None] & (offs_d[None, :] < D))


def run(q, k, v, cos, sin, scale):
    B, H, S, D = q.shape
    HALF = D // 2
    o = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_HALF = max(16, triton.next_power_of_2(HALF))
    BLOCK_D = max(16, triton.next_power_of_2(D))
    grid = (triton.cdiv(S, 64), B * H)
    _rope_attn_fwd_kernel[grid](q, k, v, cos, sin, o, S, D, HALF, scale, BLOCK_M=64,
                                BLOCK_N=64, BLOCK_HALF=BLOCK_HALF, BLOCK_D=BLOCK_D,
                                num_warps=4, num_stages=2)
    return o
