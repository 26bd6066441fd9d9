import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _inv_rms_kernel(x_ptr, r_ptr, M, K, eps, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    acc = tl.zeros((BLOCK_R, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        mask = (rows[:, None] < M) & (cols[None, :] < K)
        x = tl.load(x_ptr + rows[:, None].to(tl.int64) * K + cols[None, :], mask=mask,
                    other=0.0).to(tl.float32)
        acc += x * x
    tl.store(r_ptr + rows, 1.0 / tl.sqrt(tl.sum(acc, axis=1) / K + eps), mask=rows < M)


@triton.jit
def _linear_kernel(a_ptr, r_ptr, nw_ptr, w_ptr, w2_ptr, res_ptr, o_ptr, M, N, K,
                   NORM: tl.constexpr, SWIGLU: tl.constexpr, RESIDUAL: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr):
    # o = epilogue(prologue(a) @ w.T), w [N, K]
    #   NORM:     a tiles scaled by r[row] * nw[col] (RMSNorm), rounded to the input dtype
    #   SWIGLU:   o = silu(a @ w.T) * (a @ w2.T)
    #   RESIDUAL: o = res + a @ w.T
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
    if NORM:
        r = tl.load(r_ptr + offs_m, mask=mask_m, other=0.0)
    a_ptrs = a_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    w_off = offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_mask = offs_k < K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & k_mask[None, :], other=0.0)
        if NORM:
            nw = tl.load(nw_ptr + k0 + offs_k, mask=k_mask, other=0.0).to(tl.float32)
            a = (a.to(tl.float32) * r[:, None] * nw[None, :]).to(a_ptr.dtype.element_ty)
        w_mask = k_mask[:, None] & mask_n[None, :]
        w = tl.load(w_ptr + w_off, mask=w_mask, other=0.0)
        acc = tl.dot(a, w, acc, input_precision="ieee")
        if SWIGLU:
            w2 = tl.load(w2_ptr + w_off, mask=w_mask, other=0.0)
            acc2 = tl.dot(a, w2, acc2, input_precision="ieee")
        a_ptrs += BLOCK_K
        w_off += BLOCK_K
    if SWIGLU:
        acc = acc / (1.0 + tl.exp(-acc)) * acc2
    mask = mask_m[:, None] & mask_n[None, :]
    offs = offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    if RESIDUAL:
        acc += tl.load(res_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(o_ptr + offs, acc.to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rope_gqa_attn_kernel(qkv_ptr, cos_ptr, sin_ptr, a_ptr, H, HKV, S, D, HALF, scale,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_HALF: tl.constexpr, BLOCK_D: tl.constexpr):
    # causal GQA attention reading q, k, v straight out of the packed [B*S, (H + 2 HKV) D] qkv
    # buffer, rotating q and k (NeoX halves, rounded to the dtype) as they are loaded, and
    # writing the head's output into its D columns of a [B*S, H D]
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh % H
    g = h // (H // HKV)
    ld = (H + 2 * HKV) * D
    row0 = (b * S).to(tl.int64)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_i = tl.arange(0, BLOCK_HALF)
    offs_d = tl.arange(0, BLOCK_D)
    i_mask = offs_i < HALF
    d_mask = offs_d < D
    m_mask = offs_m < S
    qm = m_mask[:, None] & i_mask[None, :]
    q_row = qkv_ptr + (row0 + offs_m[:, None]) * ld + h * D
    q1 = tl.load(q_row + offs_i[None, :], mask=qm, other=0.0)
    q2 = tl.load(q_row + HALF + offs_i[None, :], mask=qm, other=0.0).to(tl.float32)
    cq = tl.load(cos_ptr + offs_m[:, None] * HALF + offs_i[None, :], mask=qm, other=0.0)
    sq = tl.load(sin_ptr + offs_m[:, None] * HALF + offs_i[None, :], mask=qm, other=0.0)
    dt = q1.dtype
    q1 = q1.to(tl.float32)
    qa = (q1 * cq - q2 * sq).to(dt)
    qb = (q2 * cq + q1 * sq).to(dt)
    k_off = H * D + g * D
    v_off = (H + HKV) * D + g * D
    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        km = i_mask[:, None] & (cols[None, :] < S)  # transposed tiles [HALF, BLOCK_N]
        k_col = qkv_ptr + (row0 + cols[None, :]) * ld + k_off
        k1 = tl.load(k_col + offs_i[:, None], mask=km, other=0.0).to(tl.float32)
        k2 = tl.load(k_col + HALF + offs_i[:, None], mask=km, other=0.0).to(tl.float32)
        ck = tl.load(cos_ptr + cols[None, :] * HALF + offs_i[:, None], mask=km, other=0.0)
        sk = tl.load(sin_ptr + cols[None, :] * HALF + offs_i[:, None], mask=km, other=0.0)
        ka = (k1 * ck - k2 * sk).to(dt)
        kb = (k2 * ck + k1 * sk).to(dt)
        s = tl.dot(qa, ka, input_precision="ieee")
        s = tl.dot(qb, kb, s, input_precision="ieee") * qk_scale
        s = tl.where((cols[None, :] <= offs_m[:, None]) & (cols[None, :] < S), s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(qkv_ptr + (row0 + cols[:, None]) * ld + v_off + offs_d[None, :],
                    mask=(cols[:, None] < S) & d_mask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    l_i = tl.where(l_i > 0, l_i, 1.0)
    out = acc / l_i[:, None]
    tl.store(a_ptr + (row0 + offs_m[:, None]) * (H * D) + h * D + offs_d[None, :],
             out.to(a_ptr.dtype.element_ty), mask=m_mask[:, None] & d_mask[None, :])


def _linear(a, w, out, r=None, nw=None, w2=None, res=None):
    M, K = a.shape
    N = out.shape[1]
    BM, BN, BK, GM = 128, 64, 32, 8
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    _linear_kernel[grid](a, r if r is not None else a, nw if nw is not None else a, w,
                         w2 if w2 is not None else w, res if res is not None else a, out,
                         M, N, K, NORM=r is not None, SWIGLU=w2 is not None,
                         RESIDUAL=res is not None, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                         GROUP_M=GM, num_warps=8, num_stages=3)


def run(x, attn_norm_w, w_qkv, w_o, mlp_norm_w, w_gate_up, w_down, cos, sin, n_heads,
        n_kv_heads):
    B, S, DM = x.shape
    H, HKV = n_heads, n_kv_heads
    D = w_qkv.shape[0] // (H + 2 * HKV)
    F = w_down.shape[1]
    M = B * S
    dev, dt = x.device, x.dtype
    x2 = x.view(M, DM)
    r = torch.empty((M,), dtype=torch.float32, device=dev)
    qkv = torch.empty((M, (H + 2 * HKV) * D), dtype=dt, device=dev)
    a = torch.empty((M, H * D), dtype=dt, device=dev)
    h = torch.empty((M, DM), dtype=dt, device=dev)
    hidden = torch.empty((M, F), dtype=dt, device=dev)
    y = torch.empty((B, S, DM), dtype=dt, device=dev)

    _inv_rms_kernel[(triton.cdiv(M, 16),)](x2, r, M, DM, 1e-5, BLOCK_R=16, BLOCK_K=256)
    _linear(x2, w_qkv, qkv, r=r, nw=attn_norm_w)
    HALF = D // 2
    _rope_gqa_attn_kernel[(triton.cdiv(S, 64), B * H)](
        qkv, cos, sin, a, H, HKV, S, D, HALF, D ** -0.5, BLOCK_M=64, BLOCK_N=64,
        BLOCK_HALF=max(16, triton.next_power_of_2(HALF)),
        BLOCK_D=max(16, triton.next_power_of_2(D)), num_warps=4, num_stages=2)
    _linear(a, w_o, h, res=x2)
    _inv_rms_kernel[(triton.cdiv(M, 16),)](h, r, M, DM, 1e-5, BLOCK_R=16, BLOCK_K=256)
    # gate rows 0..F-1 and up rows F..2F-1 of the merged weight, as row views
    _linear(h, w_gate_up[:F], hidden, r=r, nw=mlp_norm_w, w2=w_gate_up[F:])
    _linear(hidden, w_down, y.view(M, DM), res=h)
    return y
