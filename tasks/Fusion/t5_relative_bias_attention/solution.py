import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _t5_attn_kernel(q_ptr, k_ptr, v_ptr, bias_ptr, bucket_ptr, o_ptr, H, S, D, scale,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    h = pid_bh % H
    base = pid_bh.to(tl.int64) * S * D
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    m_mask = offs_m < S
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :],
                mask=m_mask[:, None] & d_mask[None, :], other=0.0)
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start_n in range(0, S, BLOCK_N):
        cols = start_n + offs_n
        n_mask = cols < S
        kt = tl.load(k_ptr + base + cols[None, :] * D + offs_d[:, None],
                     mask=n_mask[None, :] & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * scale
        # the bias of offset j - i: bucket table, then the head's column of the bias table
        valid = m_mask[:, None] & n_mask[None, :]
        rel = tl.where(valid, cols[None, :] - offs_m[:, None] + S - 1, 0)
        bk = tl.load(bucket_ptr + rel)
        bias = tl.load(bias_ptr + bk * H + h).to(tl.float32)
        s = tl.where(n_mask[None, :], (s + bias) * LOG2E, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + cols[:, None] * D + offs_d[None, :],
                    mask=n_mask[:, None] & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=m_mask[:, None] & d_mask[None, :])


def run(q, k, v, rel_bias, bucket, scale):
    B, H, S, D = q.shape
    o = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    grid = (triton.cdiv(S, 64), B * H)
    _t5_attn_kernel[grid](q, k, v, rel_bias, bucket, o, H, S, D, scale, BLOCK_M=64, BLOCK_N=64,
                          BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    return o
