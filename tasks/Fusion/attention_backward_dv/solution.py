import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _lse_kernel(q_ptr, k_ptr, lse_ptr, S, D, scale,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # per query row, in base 2: lse2[i] = log2(sum_{j<=i} exp2(s[i, j] * log2(e)))
    pid_m = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * S * D
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :],
                mask=(offs_m[:, None] < S) & d_mask[None, :], other=0.0)
    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        kt = tl.load(k_ptr + base + cols[None, :] * D + offs_d[:, None],
                     mask=(cols[None, :] < S) & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        s = tl.where((cols[None, :] <= offs_m[:, None]) & (cols[None, :] < S), s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        l_i = l_i * tl.exp2(m_i - m_new) + tl.sum(tl.exp2(s - m_new[:, None]), axis=1)
        m_i = m_new
    l_i = tl.where(l_i > 0, l_i, 1.0)
    tl.store(lse_ptr + bh * S + offs_m, m_i + tl.log2(l_i), mask=offs_m < S)


@triton.jit
def _dv_kernel(q_ptr, k_ptr, do_ptr, lse_ptr, dv_ptr, S, D, scale,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # one program per key tile: loop over the query tiles at or below the diagonal
    pid_n = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * S * D
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    n_mask = offs_n < S
    kt = tl.load(k_ptr + base + offs_n[None, :] * D + offs_d[:, None],
                 mask=n_mask[None, :] & d_mask[:, None], other=0.0)
    qk_scale = scale * LOG2E
    acc = tl.zeros([BLOCK_N, BLOCK_D], dtype=tl.float32)
    lo = (pid_n * BLOCK_N // BLOCK_M) * BLOCK_M
    for start_m in range(lo, S, BLOCK_M):
        rows = start_m + offs_m
        r_mask = rows < S
        q = tl.load(q_ptr + base + rows[:, None] * D + offs_d[None, :],
                    mask=r_mask[:, None] & d_mask[None, :], other=0.0)
        lse = tl.load(lse_ptr + bh * S + rows, mask=r_mask, other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale  # [BLOCK_M, BLOCK_N]
        visible = (offs_n[None, :] <= rows[:, None]) & r_mask[:, None] & n_mask[None, :]
        p = tl.where(visible, tl.exp2(s - lse[:, None]), 0.0)
        do = tl.load(do_ptr + base + rows[:, None] * D + offs_d[None, :],
                     mask=r_mask[:, None] & d_mask[None, :], other=0.0)
        acc = tl.dot(tl.trans(p.to(do.dtype)), do, acc, input_precision="ieee")
    tl.store(dv_ptr + base + offs_n[:, None] * D + offs_d[None, :],
             acc.to(dv_ptr.dtype.element_ty), mask=n_mask[:, None] & d_mask[None, :])


def run(q, k, v, grad_out, scale):
    B, H, S, D = q.shape
    lse = torch.empty((B, H, S), dtype=torch.float32, device=q.device)
    dv = torch.empty((B, H, S, D), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    _lse_kernel[(triton.cdiv(S, 64), B * H)](q, k, lse, S, D, scale, BLOCK_M=64, BLOCK_N=64,
                                            BLOCK_D=BLOCK_D, num_warps=4, num_stages=2)
    _dv_kernel[(triton.cdiv(S, 64), B * H)](q, k, grad_out, lse, dv, S, D, scale, BLOCK_M=64,
                                           BLOCK_N=64, BLOCK_D=BLOCK_D, num_warps=4,
                                           num_stages=2)
    return dv
