import torch
import triton
import triton.language as tl


@triton.jit
def _gdr_recurrent_kernel(q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, o_ptr, st_ptr, T, H, K, V, scale,
                          BLOCK_K: tl.constexpr, BLOCK_V: tl.constexpr):
    # one program per (b, h, value block): the [K, BV] state in float32, stepped over T; q and
    # k L2-normalized in the kernel (each value block recomputes them: K is small)
    pid_bh = tl.program_id(0)
    b = (pid_bh // H).to(tl.int64)
    h = pid_bh % H
    offs_k = tl.arange(0, BLOCK_K)
    offs_v = tl.program_id(1) * BLOCK_V + tl.arange(0, BLOCK_V)
    k_mask = offs_k < K
    v_mask = offs_v < V
    S = tl.zeros([BLOCK_K, BLOCK_V], dtype=tl.float32)
    for t in range(0, T):
        bth = (b * T + t) * H + h
        q = tl.load(q_ptr + bth * K + offs_k, mask=k_mask, other=0.0).to(tl.float32)
        k = tl.load(k_ptr + bth * K + offs_k, mask=k_mask, other=0.0).to(tl.float32)
        v = tl.load(v_ptr + bth * V + offs_v, mask=v_mask, other=0.0).to(tl.float32)
        q = q / tl.sqrt(tl.sum(q * q, axis=0) + 1e-6)
        k = k / tl.sqrt(tl.sum(k * k, axis=0) + 1e-6)
        g = tl.load(g_ptr + bth)
        beta = tl.load(beta_ptr + bth).to(tl.float32)
        S = S * tl.exp(g)
        u = (v - tl.sum(S * k[:, None], axis=0)) * beta
        S = S + k[:, None] * u[None, :]
        o = tl.sum(S * (q * scale)[:, None], axis=0)
        tl.store(o_ptr + bth * V + offs_v, o.to(o_ptr.dtype.element_ty), mask=v_mask)
    tl.store(st_ptr + pid_bh.to(tl.int64) * K * V + offs_k[:, None] * V + offs_v[None, :], S,
             mask=k_mask[:, None] & v_mask[None, :])


def run(q, k, v, g, beta, scale):
    B, T, H, K = q.shape
    V = v.shape[-1]
    o = torch.empty((B, T, H, V), dtype=q.dtype, device=q.device)
    final = torch.empty((B, H, K, V), dtype=torch.float32, device=q.device)
    BLOCK_V = min(32, max(16, triton.next_power_of_2(V)))
    grid = (B * H, triton.cdiv(V, BLOCK_V))
    _gdr_recurrent_kernel[grid](q, k, v, g, beta, o, final, T, H, K, V, scale,
                                BLOCK_K=max(16, triton.next_power_of_2(K)), BLOCK_V=BLOCK_V,
                                num_warps=4)
    return o, final
