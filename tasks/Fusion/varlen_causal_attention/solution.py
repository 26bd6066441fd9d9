import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _varlen_causal_fwd_kernel(q_ptr, k_ptr, v_ptr, cu_ptr, o_ptr, H, HKV, D, scale,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh % H
    g = h // (H // HKV)
    start = tl.load(cu_ptr + b)
    length = tl.load(cu_ptr + b + 1) - start
    if pid_m * BLOCK_M < length:  # query tiles past this sequence's end do nothing
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # positions within the sequence
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, BLOCK_D)
        d_mask = offs_d < D
        m_mask = offs_m < length
        tok = (start + offs_m).to(tl.int64)
        q = tl.load(q_ptr + (tok[:, None] * H + h) * D + offs_d[None, :],
                    mask=m_mask[:, None] & d_mask[None, :], other=0.0)
        qk_scale = scale * LOG2E
        m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
        hi = tl.minimum((pid_m + 1) * BLOCK_M, length)
        for start_n in range(0, hi, BLOCK_N):
            cols = start_n + offs_n
            kv_tok = (start + cols).to(tl.int64)
            c_mask = cols < length
            kt = tl.load(k_ptr + (kv_tok[None, :] * HKV + g) * D + offs_d[:, None],
                         mask=c_mask[None, :] & d_mask[:, None], other=0.0)
            s = tl.dot(q, kt, input_precision="ieee") * qk_scale
            s = tl.where((cols[None, :] <= offs_m[:, None]) & c_mask[None, :], s, -float("inf"))
            m_new = tl.maximum(m_i, tl.max(s, axis=1))
            alpha = tl.exp2(m_i - m_new)
            p = tl.exp2(s - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, axis=1)
            v = tl.load(v_ptr + (kv_tok[:, None] * HKV + g) * D + offs_d[None, :],
                        mask=c_mask[:, None] & d_mask[None, :], other=0.0)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
            m_i = m_new
        l_i = tl.where(l_i > 0, l_i, 1.0)
        out = acc / l_i[:, None]
        tl.store(o_ptr + (tok[:, None] * H + h) * D + offs_d[None, :],
                 out.to(o_ptr.dtype.element_ty), mask=m_mask[:, None] & d_mask[None, :])


def run(q, k, v, cu_seqlens, max_seqlen, scale):
    T, H, D = q.shape
    HKV = k.shape[1]
    B = cu_seqlens.shape[0] - 1
    o = torch.empty((T, H, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(max_seqlen, BLOCK_M), B * H)
    _varlen_causal_fwd_kernel[grid](q, k, v, cu_seqlens, o, H, HKV, D, scale, BLOCK_M=BLOCK_M,
                                    BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D, num_warps=4,
                                    num_stages=2)
    return o
