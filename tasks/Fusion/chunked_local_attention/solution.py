import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _chunked_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, H, HKV, S, D, chunk, scale,
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
    q_chunk = offs_m // chunk
    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    # key tiles from the start of the first query's chunk to the last query
    lo = ((pid_m * BLOCK_M) // chunk * chunk) // BLOCK_N * BLOCK_N
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    for start_n in range(lo, hi, BLOCK_N):
        cols = start_n + offs_n
        kt = tl.load(k_ptr + kv_base + cols[None, :] * D + offs_d[:, None],
                     mask=(cols[None, :] < S) & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        visible = (cols[None, :] <= offs_m[:, None]) & (cols[None, :] // chunk == q_chunk[:, None])
        s = tl.where(visible & (cols[None, :] < S), s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv_base + cols[:, None] * D + offs_d[None, :],
                    mask=(cols[:, None] < S) & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    l_i = tl.where(l_i > 0, l_i, 1.0)
    out = acc / l_i[:, None]
    tl.store(o_ptr + q_base + offs_m[:, None] * D + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=(offs_m[:, None] < S) & d_mask[None, :])


def run(q, k, v, chunk, scale):
    B, H, S, D = q.shape
    HKV = k.shape[1]
    o = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(S, BLOCK_M), B * H)
    _chunked_fwd_kernel[grid](q, k, v, o, H, HKV, S, D, chunk, scale, BLOCK_M=BLOCK_M,
                              BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    return o
