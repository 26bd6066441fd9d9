import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _attn_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr,
                     sqb, sqh, sqs, sqd, skb, skh, sks, skd, svb, svh, svs, svd,
                     H, S, D, scale,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = (pid_bh // H).to(tl.int64)
    h = (pid_bh % H).to(tl.int64)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D

    q_ptrs = q_ptr + b * sqb + h * sqh + offs_m[:, None] * sqs + offs_d[None, :] * sqd
    q = tl.load(q_ptrs, mask=(offs_m[:, None] < S) & d_mask[None, :], other=0.0)
    k_base = k_ptr + b * skb + h * skh
    v_base = v_ptr + b * svb + h * svh

    qk_scale = scale * LOG2E  # softmax in base 2: exp(x) = exp2(x * log2(e))
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start_n in range(0, S, BLOCK_N):
        cols = start_n + offs_n
        kt = tl.load(k_base + cols[None, :] * sks + offs_d[:, None] * skd,
                     mask=(cols[None, :] < S) & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        s = tl.where(cols[None, :] < S, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_base + cols[:, None] * svs + offs_d[None, :] * svd,
                    mask=(cols[:, None] < S) & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    o_ptrs = o_ptr + ((b * H + h) * S + offs_m[:, None]) * D + offs_d[None, :]
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < S) & d_mask[None, :])


def run(q, k, v, scale):
    B, H, S, D = q.shape
    o = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    _attn_fwd_kernel[grid](q, k, v, o, *q.stride(), *k.stride(), *v.stride(), H, S, D, scale,
                           BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D,
                           num_warps=4, num_stages=2)
    return o
