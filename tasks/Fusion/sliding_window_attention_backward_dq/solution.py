import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _swa_dq_kernel(q_ptr, k_ptr, v_ptr, do_ptr, dq_ptr, S, D, W, scale,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # two passes over the band's key tiles of one query block: the softmax statistics, then dq
    pid_m = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * S * D
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    m_mask = offs_m < S
    row_mask = m_mask[:, None] & d_mask[None, :]
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=row_mask, other=0.0)
    do = tl.load(do_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=row_mask,
                 other=0.0)
    qk_scale = scale * LOG2E
    lo = tl.maximum(pid_m * BLOCK_M - W + 1, 0) // BLOCK_N * BLOCK_N
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    # Pass 1, online: base-2 row max m, l = sum_j 2^(s_j - m), and delta - r = t / l with
    # t = sum_j 2^(s_j - m) (dP_j - r), r the dP of the row's highest-scoring key so far. Where
    # one key holds nearly all the mass, dP - delta cancels to a few ulps of dP: a delta rounded
    # at dP's size (sum_j P dP, or dO . o) would leave that rounding in dS, times the dominant
    # key in dq. Against r the dominant term is exactly 0 and t is as small as what remains.
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    t_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    r_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start_n in range(lo, hi, BLOCK_N):
        cols = start_n + offs_n
        col_mask = (cols[None, :] < S) & d_mask[:, None]
        kt = tl.load(k_ptr + base + cols[None, :] * D + offs_d[:, None], mask=col_mask, other=0.0)
        vt = tl.load(v_ptr + base + cols[None, :] * D + offs_d[:, None], mask=col_mask, other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        band = (cols[None, :] <= offs_m[:, None]) & (cols[None, :] > offs_m[:, None] - W)
        s = tl.where(band & (cols[None, :] < S), s, -float("inf"))
        dp = tl.dot(do, vt, input_precision="ieee")
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        top = tl.max(tl.where(s == m_new[:, None], dp, -float("inf")), axis=1)
        r_new = tl.where(top > -float("inf"), top, r_i)  # the old r where the max stayed
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        t_i = (t_i + l_i * (r_i - r_new)) * alpha + tl.sum(p * (dp - r_new[:, None]), axis=1)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        m_i = m_new
        r_i = r_new
    l_i = tl.where(l_i > 0, l_i, 1.0)
    inv_l = 1.0 / l_i
    c_i = t_i * inv_l  # delta - r
    # Pass 2: P = 2^(s - m) / l, dS = P ((dP - r) - (delta - r)), dq = scale * dS k
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start_n in range(lo, hi, BLOCK_N):
        cols = start_n + offs_n
        col_mask = (cols[None, :] < S) & d_mask[:, None]
        kt = tl.load(k_ptr + base + cols[None, :] * D + offs_d[:, None], mask=col_mask, other=0.0)
        vt = tl.load(v_ptr + base + cols[None, :] * D + offs_d[:, None], mask=col_mask, other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        band = (cols[None, :] <= offs_m[:, None]) & (cols[None, :] > offs_m[:, None] - W)
        visible = band & (cols[None, :] < S) & m_mask[:, None]
        p = tl.exp2(tl.where(visible, s, -float("inf")) - m_i[:, None]) * inv_l[:, None]
        dp = tl.dot(do, vt, input_precision="ieee")
        ds = p * ((dp - r_i[:, None]) - c_i[:, None])
        acc = tl.dot(ds.to(kt.dtype), tl.trans(kt), acc, input_precision="ieee")
    tl.store(dq_ptr + base + offs_m[:, None] * D + offs_d[None, :],
             (acc * scale).to(dq_ptr.dtype.element_ty), mask=row_mask)


def run(q, k, v, grad_out, window, scale):
    B, H, S, D = q.shape
    dq = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    grid = (triton.cdiv(S, 64), B * H)
    _swa_dq_kernel[grid](q, k, v, grad_out, dq, S, D, window, scale, BLOCK_M=64, BLOCK_N=64,
                         BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    return dq
