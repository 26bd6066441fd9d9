import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _causal_attn_kernel(q_ptr, k_ptr, v_ptr, a_ptr, H, S, D, scale,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # writes the attention output straight into the [B, S, H * D] layout of the projection
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh % H
    base = pid_bh.to(tl.int64) * S * D
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :],
                mask=(offs_m[:, None] < S) & d_mask[None, :], other=0.0)
    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        kt = tl.load(k_ptr + base + cols[None, :] * D + offs_d[:, None],
                     mask=(cols[None, :] < S) & d_mask[:, None], other=0.0)
        s = tl.dot(q, kt, input_precision="ieee") * qk_scale
        s = tl.where((cols[None, :] <= offs_m[:, None]) & (cols[None, :] < S), s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + cols[:, None] * D + offs_d[None, :],
                    mask=(cols[:, None] < S) & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    l_i = tl.where(l_i > 0, l_i, 1.0)
    out = acc / l_i[:, None]
    rows = (b * S + offs_m).to(tl.int64)
    tl.store(a_ptr + rows[:, None] * (H * D) + h * D + offs_d[None, :],
             out.to(a_ptr.dtype.element_ty), mask=(offs_m[:, None] < S) & d_mask[None, :])


@triton.jit
def _proj_residual_kernel(a_ptr, w_ptr, r_ptr, o_ptr, M, N, K,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          GROUP_M: tl.constexpr):
    # out = residual + a @ w.T, a [M, K], w [N, K]
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    a_ptrs = a_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        w = tl.load(w_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        acc = tl.dot(a, w, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    mask = mask_m[:, None] & mask_n[None, :]
    offs = offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    r = tl.load(r_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(o_ptr + offs, (acc + r).to(o_ptr.dtype.element_ty), mask=mask)


def run(q, k, v, w_o, residual, scale):
    B, H, S, D = q.shape
    DM = w_o.shape[0]
    a = torch.empty((B, S, H * D), dtype=q.dtype, device=q.device)
    out = torch.empty((B, S, DM), dtype=q.dtype, device=q.device)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    _causal_attn_kernel[(triton.cdiv(S, 64), B * H)](q, k, v, a, H, S, D, scale, BLOCK_M=64,
                                                     BLOCK_N=64, BLOCK_D=BLOCK_D, num_warps=4,
                                                     num_stages=2)
    M = B * S
    BM, BN, BK, GM = 128, 128, 32, 8
    _proj_residual_kernel[(triton.cdiv(M, BM) * triton.cdiv(DM, BN),)](
        a, w_o, residual, out, M, DM, H * D, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=GM,
        num_warps=8, num_stages=3)
    return out
