import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _diff_attn_kernel(q_ptr, k_ptr, v_ptr, w_ptr, o_ptr, H, S, D, DV, lam, out_scale, eps, scale,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
                      BLOCK_DV: tl.constexpr):
    # head h: two causal softmax maps (query/key heads 2h and 2h + 1) over the same v[h], both
    # online in one key loop; then (o1 - lam * o2), RMSNorm over DV = 2D, * (1 - lambda_init)
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh % H
    qk1 = (b * 2 * H + 2 * h).to(tl.int64) * S * D
    qk2 = qk1 + S * D
    v_base = pid_bh.to(tl.int64) * S * DV
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    offs_v = tl.arange(0, BLOCK_DV)
    d_mask = offs_d < D
    v_mask = offs_v < DV
    m_mask = offs_m < S
    q_off = offs_m[:, None] * D + offs_d[None, :]
    q_msk = m_mask[:, None] & d_mask[None, :]
    q1 = tl.load(q_ptr + qk1 + q_off, mask=q_msk, other=0.0)
    q2 = tl.load(q_ptr + qk2 + q_off, mask=q_msk, other=0.0)
    qk_scale = scale * LOG2E
    m1 = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    m2 = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l1 = tl.zeros([BLOCK_M], dtype=tl.float32)
    l2 = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc1 = tl.zeros([BLOCK_M, BLOCK_DV], dtype=tl.float32)
    acc2 = tl.zeros([BLOCK_M, BLOCK_DV], dtype=tl.float32)
    hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        n_mask = cols < S
        k_off = cols[None, :] * D + offs_d[:, None]
        k_msk = n_mask[None, :] & d_mask[:, None]
        visible = (cols[None, :] <= offs_m[:, None]) & n_mask[None, :]
        v = tl.load(v_ptr + v_base + cols[:, None] * DV + offs_v[None, :],
                    mask=n_mask[:, None] & v_mask[None, :], other=0.0)
        k1 = tl.load(k_ptr + qk1 + k_off, mask=k_msk, other=0.0)
        s1 = tl.where(visible, tl.dot(q1, k1, input_precision="ieee") * qk_scale, -float("inf"))
        n1 = tl.maximum(m1, tl.max(s1, axis=1))
        a1 = tl.exp2(m1 - n1)
        p1 = tl.exp2(s1 - n1[:, None])
        l1 = l1 * a1 + tl.sum(p1, axis=1)
        acc1 = acc1 * a1[:, None] + tl.dot(p1.to(v.dtype), v, input_precision="ieee")
        m1 = n1
        k2 = tl.load(k_ptr + qk2 + k_off, mask=k_msk, other=0.0)
        s2 = tl.where(visible, tl.dot(q2, k2, input_precision="ieee") * qk_scale, -float("inf"))
        n2 = tl.maximum(m2, tl.max(s2, axis=1))
        a2 = tl.exp2(m2 - n2)
        p2 = tl.exp2(s2 - n2[:, None])
        l2 = l2 * a2 + tl.sum(p2, axis=1)
        acc2 = acc2 * a2[:, None] + tl.dot(p2.to(v.dtype), v, input_precision="ieee")
        m2 = n2
    l1 = tl.where(l1 > 0, l1, 1.0)
    l2 = tl.where(l2 > 0, l2, 1.0)
    a = acc1 / l1[:, None] - lam * (acc2 / l2[:, None])
    rstd = 1.0 / tl.sqrt(tl.sum(a * a, axis=1) / DV + eps)
    w = tl.load(w_ptr + offs_v, mask=v_mask, other=0.0).to(tl.float32)
    out = a * rstd[:, None] * w[None, :] * out_scale
    tl.store(o_ptr + v_base + offs_m[:, None] * DV + offs_v[None, :],
             out.to(o_ptr.dtype.element_ty), mask=m_mask[:, None] & v_mask[None, :])


def run(q, k, v, weight, lam, lambda_init, eps, scale):
    B, H2, S, D = q.shape
    H, DV = H2 // 2, v.shape[-1]
    o = torch.empty((B, H, S, DV), dtype=q.dtype, device=q.device)
    grid = (triton.cdiv(S, 32), B * H)
    _diff_attn_kernel[grid](q, k, v, weight, o, H, S, D, DV, lam, 1.0 - lambda_init, eps, scale,
                            BLOCK_M=32, BLOCK_N=32, BLOCK_D=max(16, triton.next_power_of_2(D)),
                            BLOCK_DV=max(16, triton.next_power_of_2(DV)), num_warps=4,
                            num_stages=2)
    return o
