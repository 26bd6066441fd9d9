import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _stats_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, S, D, scale,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # per query row: base-2 lse and delta = sum_j P dP, both accumulated online over the keys
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
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        col_mask = (cols[None, :] < S) & d_mask[:, None]
        kt = tl.load(k_ptr + base + cols[None, :] * D + offs_d[:, None], mask=col_mask, other=0.0)
        vt = tl.load(v_ptr + base + cols[None, :] * D + offs_d[:, None], mask=col_mask, other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        s = tl.where((cols[None, :] <= offs_m[:, None]) & (cols[None, :] < S), s, -float("inf"))
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
def _dk_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, S, D, scale,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # one program per key tile; the scores are computed transposed ([BLOCK_N, BLOCK_M]) so that
    # dS^T q is a plain product
    pid_n = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * S * D
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    n_mask = offs_n < S
    key_mask = n_mask[:, None] & d_mask[None, :]
    k = tl.load(k_ptr + base + offs_n[:, None] * D + offs_d[None, :], mask=key_mask, other=0.0)
    v = tl.load(v_ptr + base + offs_n[:, None] * D + offs_d[None, :], mask=key_mask, other=0.0)
    qk_scale = scale * LOG2E
    acc = tl.zeros([BLOCK_N, BLOCK_D], dtype=tl.float32)
    lo = (pid_n * BLOCK_N // BLOCK_M) * BLOCK_M
    for start_m in range(lo, S, BLOCK_M):
        rows = start_m + offs_m
        r_mask = rows < S
        qt_mask = d_mask[:, None] & r_mask[None, :]
        qt = tl.load(q_ptr + base + rows[None, :] * D + offs_d[:, None], mask=qt_mask, other=0.0)
        dot_ = tl.load(do_ptr + base + rows[None, :] * D + offs_d[:, None], mask=qt_mask,
                       other=0.0)
        lse = tl.load(lse_ptr + bh * S + rows, mask=r_mask, other=0.0)
        delta = tl.load(delta_ptr + bh * S + rows, mask=r_mask, other=0.0)
        st = tl.dot(k, qt, input_precision="ieee") * qk_scale  # [BLOCK_N, BLOCK_M] = s^T
        visible = (offs_n[:, None] <= rows[None, :]) & n_mask[:, None] & r_mask[None, :]
        pt = tl.where(visible, tl.exp2(st - lse[None, :]), 0.0)
        dpt = tl.dot(v, dot_, input_precision="ieee")  # dP^T
        dst = pt * (dpt - delta[None, :])
        acc = tl.dot(dst.to(qt.dtype), tl.trans(qt), acc, input_precision="ieee")
    tl.store(dk_ptr + base + offs_n[:, None] * D + offs_d[None, :],
             (acc * scale).to(dk_ptr.dtype.element_ty), mask=key_mask)


def run(q, k, v, grad_out, scale):
    B, H, S, D = q.shape
    lse = torch.empty((B, H, S), dtype=torch.float32, device=q.device)
    delta = torch.empty((B, H, S), dtype=torch.float32, device=q.device)
    dk = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    grid = (triton.cdiv(S, 64), B * H)
    _stats_kernel[grid](q, k, v, grad_out, lse, delta, S, D, scale, BLOCK_M=64, BLOCK_N=64,
                        BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    _dk_kernel[grid](q, k, v, grad_out, lse, delta, dk, S, D, scale, BLOCK_M=64, BLOCK_N=64,
                     BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    return dk
