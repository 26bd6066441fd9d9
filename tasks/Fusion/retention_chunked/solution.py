import torch
import triton
import triton.language as tl


@triton.jit
def _retention_chunk_kernel(q_ptr, k_ptr, v_ptr, lg_ptr, o_ptr, st_ptr, H, S, DK, DV, scale,
                            C: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_V: tl.constexpr):
    # one program per (b, h, value block); chunks of C steps carry the decayed [DK, BV] state:
    # o_i = scale * (g^(i+1) q_i state + sum_{j<=i} g^(i-j) (q_i . k_j) v_j),
    # state <- g^L state + sum_j g^(L-1-j) k_j^T v_j  (L: the chunk's valid length)
    bh = tl.program_id(0)
    pid_v = tl.program_id(1)
    lg = tl.load(lg_ptr + bh % H)
    bh64 = bh.to(tl.int64)
    offs_c = tl.arange(0, C)
    offs_k = tl.arange(0, BLOCK_K)
    offs_v = pid_v * BLOCK_V + tl.arange(0, BLOCK_V)
    k_mask = offs_k < DK
    v_mask = offs_v < DV
    qk_base = bh64 * S * DK
    v_base = bh64 * S * DV
    state = tl.zeros([BLOCK_K, BLOCK_V], dtype=tl.float32)
    comp = tl.zeros([BLOCK_K, BLOCK_V], dtype=tl.float32)
    ci = offs_c.to(tl.float32)
    diff = ci[:, None] - ci[None, :]
    decay = tl.where(diff >= 0, tl.exp2(lg * tl.maximum(diff, 0.0)), 0.0)
    q_decay = tl.exp2(lg * (ci + 1.0))
    for t0 in range(0, S, C):
        rows = t0 + offs_c
        r_mask = rows < S
        L = tl.minimum(S - t0, C).to(tl.float32)
        q = tl.load(q_ptr + qk_base + rows[:, None] * DK + offs_k[None, :],
                    mask=r_mask[:, None] & k_mask[None, :], other=0.0).to(tl.float32)
        k = tl.load(k_ptr + qk_base + rows[:, None] * DK + offs_k[None, :],
                    mask=r_mask[:, None] & k_mask[None, :], other=0.0).to(tl.float32)
        v = tl.load(v_ptr + v_base + rows[:, None] * DV + offs_v[None, :],
                    mask=r_mask[:, None] & v_mask[None, :], other=0.0).to(tl.float32)
        a = tl.dot(q, tl.trans(k), input_precision="ieee") * decay
        o = (tl.dot(q, state, input_precision="ieee") * q_decay[:, None]
             + tl.dot(a, v, input_precision="ieee"))
        tl.store(o_ptr + v_base + rows[:, None] * DV + offs_v[None, :],
                 (o * scale).to(o_ptr.dtype.element_ty), mask=r_mask[:, None] & v_mask[None, :])
        k_decay = tl.where(r_mask, tl.exp2(lg * tl.maximum(L - 1.0 - ci, 0.0)), 0.0)
        # The carried state is decayed by g^L = 1 + m once a chunk, 256 times at S = 8192: a
        # float32 g^L is off by up to 1/2 ulp (sm_90's ex2.approx: more) and, the same factor
        # every chunk, that error compounds (an H100 had 0.04% of o past 1e-4; the interpreter
        # with exp2 one ulp up fails the same way). m = expm1(lg L ln2) by Taylor (|lg L ln2|
        # <= 1.1 here, 13 terms) carries the factor to ~ulp(m), and the state is carried
        # compensated: compiled, the update's dot accumulates into the state once per step.
        x = lg * L * 0.6931471805599453
        r = 1.0 + x * (1.0 / 13.0)
        for n in tl.static_range(12, 1, -1):
            r = 1.0 + x * r * (1.0 / n)
        m = tl.where(x > -1.5, x * r, tl.exp2(lg * L) - 1.0)  # outside the contract: exp2
        upd = tl.dot(tl.trans(k * k_decay[:, None]), v, input_precision="ieee") + state * m
        y = upd - comp
        t = state + y
        comp = (t - state) - y
        state = t
    tl.store(st_ptr + bh64 * DK * DV + offs_k[:, None] * DV + offs_v[None, :], state,
             mask=k_mask[:, None] & v_mask[None, :])


def run(q, k, v, log2_gamma, scale):
    B, H, S, DK = q.shape
    DV = v.shape[-1]
    o = torch.empty((B, H, S, DV), dtype=q.dtype, device=q.device)
    final = torch.empty((B, H, DK, DV), dtype=torch.float32, device=q.device)
    BLOCK_V = min(64, max(16, triton.next_power_of_2(DV)))
    grid = (B * H, triton.cdiv(DV, BLOCK_V))
    _retention_chunk_kernel[grid](q, k, v, log2_gamma, o, final, H, S, DK, DV, scale, C=32,
                                  BLOCK_K=max(16, triton.next_power_of_2(DK)),
                                  BLOCK_V=BLOCK_V, num_warps=4)
    return o, final
