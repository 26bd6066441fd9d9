import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _decode_append_kernel(q_ptr, kn_ptr, vn_ptr, kc_ptr, vc_ptr, len_ptr, o_ptr, H, HKV, SMAX, D,
                          scale, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_D: tl.constexpr, CHUNK_D: tl.constexpr):
    # one program per (b, kv head): append the new key/value at slot L = cache_seqlens[b], then
    # attend the group's query heads over slots 0..L (the new token taken from registers, so the
    # program never reads its own just-written slot)
    b = tl.program_id(0)
    g = tl.program_id(1)
    G = H // HKV
    L = tl.load(len_ptr + b)
    offs_h = tl.arange(0, BLOCK_H)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    d_mask = offs_d < D
    h_mask = offs_h < G
    bg = (b * HKV + g).to(tl.int64)
    kn = tl.load(kn_ptr + bg * D + offs_d, mask=d_mask, other=0.0)
    vn = tl.load(vn_ptr + bg * D + offs_d, mask=d_mask, other=0.0)
    cache = bg * SMAX * D
    tl.store(kc_ptr + cache + L * D + offs_d, kn, mask=d_mask)
    tl.store(vc_ptr + cache + L * D + offs_d, vn, mask=d_mask)
    heads = (b * H + g * G + offs_h).to(tl.int64)
    qk_scale = scale * LOG2E
    m_i = tl.full([BLOCK_H], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, BLOCK_D], dtype=tl.float32)
    offs_c = tl.arange(0, CHUNK_D)
    for start in range(0, L + 1, BLOCK_N):
        cols = start + offs_n
        old = cols < L
        # Scores as BLOCK_D / CHUNK_D independent dots over chunks of D, added after: a float32
        # tl.dot on sm_90 is one FMA chain over its K (no tensor cores), and where one product
        # of q . k dominates (q's outliers) a 128-long chain rounds at that product's size 128
        # times, beyond the float32 bounds at some outputs (an H100: 47 misses, 32 allowed).
        # Each part is scaled before the sum, so Triton does not fold the add into the next
        # dot's accumulator (tt.dot(a, b, 0) + c becomes tt.dot(a, b, c): one chain again).
        s = tl.zeros([BLOCK_H, BLOCK_N], dtype=tl.float32)
        for c in tl.static_range(0, BLOCK_D, CHUNK_D):
            dc = c + offs_c
            qc = tl.load(q_ptr + heads[:, None] * D + dc[None, :],
                         mask=h_mask[:, None] & (dc < D)[None, :], other=0.0)
            knc = tl.load(kn_ptr + bg * D + dc, mask=dc < D, other=0.0)
            kc = tl.load(kc_ptr + cache + cols[None, :] * D + dc[:, None],
                         mask=old[None, :] & (dc < D)[:, None], other=0.0)
            kc = tl.where((cols == L)[None, :], knc[:, None], kc)
            s += tl.dot(qc, kc, input_precision="ieee") * qk_scale
        s = tl.where((cols <= L)[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(vc_ptr + cache + cols[:, None] * D + offs_d[None, :],
                    mask=old[:, None] & d_mask[None, :], other=0.0)
        v = tl.where((cols == L)[:, None], vn[None, :], v)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + heads[:, None] * D + offs_d[None, :], out.to(o_ptr.dtype.element_ty),
             mask=h_mask[:, None] & d_mask[None, :])


def run(q, k_new, v_new, k_cache, v_cache, cache_seqlens, scale, out):
    B, H, D = q.shape
    HKV, SMAX = k_cache.shape[1], k_cache.shape[2]
    BLOCK_D = max(16, triton.next_power_of_2(D))
    _decode_append_kernel[(B, HKV)](q, k_new, v_new, k_cache, v_cache, cache_seqlens, out, H,
                                    HKV, SMAX, D, scale,
                                    BLOCK_H=max(16, triton.next_power_of_2(H // HKV)),
                                    BLOCK_N=64, BLOCK_D=BLOCK_D, CHUNK_D=max(16, BLOCK_D // 4),
                                    num_warps=4)
