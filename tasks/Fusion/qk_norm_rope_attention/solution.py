import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _norm_rope_kernel(x_ptr, w_ptr, cos_ptr, sin_ptr, y_ptr, S, eps, D: tl.constexpr,
                      HALF: tl.constexpr, BLOCK_H: tl.constexpr):
    # one row of one head: RMSNorm over D in float32, then NeoX rotation of (d, d + D/2) pairs
    row = tl.program_id(0).to(tl.int64)
    pos = row % S
    offs = tl.arange(0, BLOCK_H)
    mask = offs < HALF
    x1 = tl.load(x_ptr + row * D + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + row * D + HALF + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt((tl.sum(x1 * x1, axis=0) + tl.sum(x2 * x2, axis=0)) / D + eps)
    w1 = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w2 = tl.load(w_ptr + HALF + offs, mask=mask, other=0.0).to(tl.float32)
    n1 = x1 * rstd * w1
    n2 = x2 * rstd * w2
    c = tl.load(cos_ptr + pos * HALF + offs, mask=mask, other=0.0)
    s = tl.load(sin_ptr + pos * HALF + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * D + offs, (n1 * c - n2 * s).to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(y_ptr + row * D + HALF + offs, (n2 * c + n1 * s).to(y_ptr.dtype.element_ty),
             mask=mask)


@triton.jit
def _causal_gqa_kernel(q_ptr, k_ptr, v_ptr, o_ptr, H, HKV, S, D, scale,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh % H
    g = h // (H // HKV)
    q_base = pid_bh.to(tl.int64) * S * D
    kv_base = (b * HKV + g).to(tl.int64) * S * D
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    q = tl.load(q_ptr + q_base + offs_m[:, None] * D + offs_d[None, :],
                mask=(offs_m[:, None] < S) & d_mask[None, :], other=0.0)
    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        kt = tl.load(k_ptr + kv_base + cols[None, :] * D + offs_d[:, None],
                     mask=(cols[None, :] < S) & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        s = tl.where((cols[None, :] <= offs_m[:, None]) & (cols[None, :] < S), s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv_base + cols[:, None] * D + offs_d[None, :],
                    mask=(cols[:, None] < S) & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    l_i = tl.where(l_i > 0, l_i, 1.0)
    tl.store(o_ptr + q_base + offs_m[:, None] * D + offs_d[None, :],
             (acc / l_i[:, None]).to(o_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < S) & d_mask[None, :])


def run(q, k, v, q_weight, k_weight, cos, sin, eps, scale):
    B, H, S, D = q.shape
    HKV = k.shape[1]
    half = D // 2
    qr = torch.empty_like(q)
    kr = torch.empty_like(k)
    BLOCK_H = triton.next_power_of_2(half)
    _norm_rope_kernel[(B * H * S,)](q, q_weight, cos, sin, qr, S, eps, D=D, HALF=half,
                                    BLOCK_H=BLOCK_H)
    _norm_rope_kernel[(B * HKV * S,)](k, k_weight, cos, sin, kr, S, eps, D=D, HALF=half,
                                      BLOCK_H=BLOCK_H)
    o = torch.empty_like(q)
    grid = (triton.cdiv(S, 64), B * H)
    _causal_gqa_kernel[grid](qr, kr, v, o, H, HKV, S, D, scale, BLOCK_M=64, BLOCK_N=64,
                             BLOCK_D=max(16, triton.next_power_of_2(D)), num_warps=4,
                             num_stages=2)
    return o
