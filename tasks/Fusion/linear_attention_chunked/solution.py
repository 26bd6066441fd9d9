import torch
import triton
import triton.language as tl


@triton.jit
def _linear_attn_chunk_kernel(q_ptr, k_ptr, v_ptr, o_ptr, st_ptr, S, DK, DV, scale,
                              C: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_V: tl.constexpr):
    # one program per (b, h, value block): the [DK, BV] state carried over chunks of C steps;
    # o_c = scale * (q_c @ state + tril(q_c k_c^T) @ v_c), then state += k_c^T v_c
    bh = tl.program_id(0).to(tl.int64)
    pid_v = tl.program_id(1)
    offs_c = tl.arange(0, C)
    offs_k = tl.arange(0, BLOCK_K)
    offs_v = pid_v * BLOCK_V + tl.arange(0, BLOCK_V)
    k_mask = offs_k < DK
    v_mask = offs_v < DV
    qk_base = bh * S * DK
    v_base = bh * S * DV
    state = tl.zeros([BLOCK_K, BLOCK_V], dtype=tl.float32)
    comp = tl.zeros([BLOCK_K, BLOCK_V], dtype=tl.float32)
    causal = offs_c[:, None] >= offs_c[None, :]
    for t0 in range(0, S, C):
        rows = t0 + offs_c
        r_mask = rows < S
        q = tl.load(q_ptr + qk_base + rows[:, None] * DK + offs_k[None, :],
                    mask=r_mask[:, None] & k_mask[None, :], other=0.0).to(tl.float32)
        k = tl.load(k_ptr + qk_base + rows[:, None] * DK + offs_k[None, :],
                    mask=r_mask[:, None] & k_mask[None, :], other=0.0).to(tl.float32)
        v = tl.load(v_ptr + v_base + rows[:, None] * DV + offs_v[None, :],
                    mask=r_mask[:, None] & v_mask[None, :], other=0.0).to(tl.float32)
        a = tl.where(causal, tl.dot(q, tl.trans(k), input_precision="ieee"), 0.0)
        o = tl.dot(q, state, input_precision="ieee") + tl.dot(a, v, input_precision="ieee")
        tl.store(o_ptr + v_base + rows[:, None] * DV + offs_v[None, :],
                 (o * scale).to(o_ptr.dtype.element_ty), mask=r_mask[:, None] & v_mask[None, :])
        # Kahan-compensated carry: compiled, `state += tl.dot(...)` becomes the dot's own
        # accumulator, one float32 rounding per time step (8192 at S=8192), which put 0.1% of
        # o past 1e-4 on an H100; the compensation keeps the carried sum at float32 accuracy
        upd = tl.dot(tl.trans(k), v, input_precision="ieee")
        y = upd - comp
        t = state + y
        comp = (t - state) - y
        state = t
    tl.store(st_ptr + bh * DK * DV + offs_k[:, None] * DV + offs_v[None, :], state,
             mask=k_mask[:, None] & v_mask[None, :])


def run(q, k, v, scale):
    B, H, S, DK = q.shape
    DV = v.shape[-1]
    o = torch.empty((B, H, S, DV), dtype=q.dtype, device=q.device)
    final = torch.empty((B, H, DK, DV), dtype=torch.float32, device=q.device)
    BLOCK_V = min(64, max(16, triton.next_power_of_2(DV)))
    grid = (B * H, triton.cdiv(DV, BLOCK_V))
    _linear_attn_chunk_kernel[grid](q, k, v, o, final, S, DK, DV, scale, C=32,
                                    BLOCK_K=max(16, triton.next_power_of_2(DK)),
                                    BLOCK_V=BLOCK_V, num_warps=4)
    return o, final
