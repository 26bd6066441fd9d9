import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _swa_stats_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, S, D, W, scale,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # one pass over the band's key tiles: base-2 lse and delta = sum_j P dP, both online
    pid_m = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * S * D
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    row_mask = (offs_m[:, None] < S) & d_mask[None, :]
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=row_mask, other=0.0)
    do = tl.load(do_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=row_mask,
                 other=0.0)
    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    t_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    lo = tl.maximum(pid_m * BLOCK_M - W + 1, 0) // BLOCK_N * BLOCK_N
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
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
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        t_i = t_i * alpha + tl.sum(p * dp, axis=1)
        m_i = m_new
    l_i = tl.where(l_i > 0, l_i, 1.0)
    tl.store(lse_ptr + bh * S + offs_m, m_i + tl.log2(l_i), mask=offs_m < S)
    tl.store(delta_ptr + bh * S + offs_m, t_i / l_i, mask=offs_m < S)


@triton.jit
def _swa_dq_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dq_ptr, S, D, W, scale,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
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
    lse = tl.load(lse_ptr + bh * S + offs_m, mask=m_mask, other=0.0)
    delta = tl.load(delta_ptr + bh * S + offs_m, mask=m_mask, other=0.0)
    qk_scale = scale * LOG2E
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    lo = tl.maximum(pid_m * BLOCK_M - W + 1, 0) // BLOCK_N * BLOCK_N
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    for start_n in range(lo, hi, BLOCK_N):
        cols = start_n + offs_n
        col_mask = (cols[None, :] < S) & d_mask[:, None]
        kt = tl.load(k_ptr + base + cols[None, :] * D + offs_d[:, None], mask=col_mask, other=0.0)
        vt = tl.load(v_ptr + base + cols[None, :] * D + offs_d[:, None], mask=col_mask, other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        band = (cols[None, :] <= offs_m[:, None]) & (cols[None, :] > offs_m[:, None] - W)
        visible = band & (cols[None, :] < S) & m_mask[:, None]
        p = tl.exp2(tl.where(visible, s, -float("inf")) - lse[:, None])  # 0 off the band
        dp = tl.dot(do, vt, input_precision="ieee")
        ds = p * (dp - delta[:, None])
        acc = tl.dot(ds.to(kt.dtype), tl.trans(kt), acc, input_precision="ieee")
    tl.store(dq_ptr + base + offs_m[:, None] * D + offs_d[None, :],
             (acc * scale).to(dq_ptr.dtype.element_ty), mask=row_mask)


def run(q, k, v, grad_out, window, scale):
    B, H, S, D = q.shape
    lse = torch.empty((B, H, S), dtype=torch.float32, device=q.device)
    delta = torch.empty((B, H, S), dtype=torch.float32, device=q.device)
    dq = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    grid = (triton.cdiv(S, 64), B * H)
    _swa_stats_kernel[grid](q, k, v, grad_out, lse, delta, S, D, window, scale, BLOCK_M=64,
                            BLOCK_N=64, BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    _swa_dq_kernel[grid](q, k, v, grad_out, lse, delta, dq, S, D, window, scale, BLOCK_M=64,
                         BLOCK_N=64, BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    return dq
