import torch
import triton
import triton.language as tl

# 1. per-token quantization of x (a row pass: absmax, then codes) -> xq int8, sx;
# 2. int8 GEMM for gate and up (two int32 accumulators), dequantized, SwiGLU in the epilogue,
#    h written in float32 together with each tile's row absmax (per N tile: no atomics);
# 3. per-token quantization of h: the row scale from the tiles' maxima, then codes;
#    the codes (x's and h's) are the reference's own: correctly rounded divisions, silu in
#    float64 (a flipped code is far outside the bounds, run 22);
# 4. int8 GEMM for down, dequantized, rounded once.


@triton.jit
def _quant_rows_kernel(z_ptr, amax_ptr, n_amax, q_ptr, s_ptr, C, HAS_AMAX: tl.constexpr,
                       BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    if HAS_AMAX:
        offs = tl.arange(0, BLOCK)
        amax = tl.max(tl.load(amax_ptr + row * n_amax + offs, mask=offs < n_amax, other=0.0),
                      axis=0)
    else:
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for c0 in range(0, C, BLOCK):
            cols = c0 + tl.arange(0, BLOCK)
            z = tl.load(z_ptr + row * C + cols, mask=cols < C, other=0.0).to(tl.float32)
            acc = tl.maximum(acc, tl.abs(z))
        amax = tl.max(acc, axis=0)
    s = tl.div_rn(amax, 127.0)  # `/` is div.full.f32 on sm_90 (a reciprocal times amax)
    safe = tl.where(s > 0, s, 1.0)
    for c0 in range(0, C, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        mask = cols < C
        z = tl.load(z_ptr + row * C + cols, mask=mask, other=0.0).to(tl.float32)
        # IEEE division (tl.div_rn): sm_90 compiles `/` to div.full.f32, a reciprocal times z,
        # which lands on the other side of a .5 tie from the reference's quotient (run 22)
        r = tl.minimum(tl.maximum(tl.div_rn(z, safe), -127.0), 127.0)
        # round half to even: adding and removing 1.5 * 2^23 leaves float32 no fraction bits,
        # so the addition itself rounds to the nearest integer, ties to even (|r| < 2^22)
        f = (r + 12582912.0) - 12582912.0
        q = f
        tl.store(q_ptr + row * C + cols, q.to(tl.int8), mask=mask)
    tl.store(s_ptr + row, s)


@triton.jit
def _int8_gemm_kernel(a_ptr, sa_ptr, w_ptr, sw_ptr, o_ptr, amax_ptr, M, N, K, F,
                      SWIGLU: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    a_ptrs = a_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    acc2 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k0 in range(0, K, BLOCK_K):
        k_mask = offs_k < K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & k_mask[None, :], other=0)
        w = tl.load(w_ptrs, mask=k_mask[:, None] & mask_n[None, :], other=0)
        acc = tl.dot(a, w, acc, out_dtype=tl.int32)  # Triton 3.6 asserts without it
        if SWIGLU:  # the up rows sit F rows below the gate rows
            w2 = tl.load(w_ptrs + F * K, mask=k_mask[:, None] & mask_n[None, :], other=0)
            acc2 = tl.dot(a, w2, acc2, out_dtype=tl.int32)
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    sa = tl.load(sa_ptr + offs_m, mask=mask_m, other=0.0)
    sw = tl.load(sw_ptr + offs_n, mask=mask_n, other=0.0)
    out = (acc.to(tl.float32) * sa[:, None]) * sw[None, :]
    mask = mask_m[:, None] & mask_n[None, :]
    if SWIGLU:
        sw2 = tl.load(sw_ptr + F + offs_n, mask=mask_n, other=0.0)
        up = (acc2.to(tl.float32) * sa[:, None]) * sw2[None, :]
        # silu(g) * u in float64, rounded once: h is then the reference's to the bit. In
        # float32 (tl.exp's ex2.approx, div.full) h is an ulp or two off, a code of h lands on
        # the other side of a tie now and then, and one flipped code moves its row of y by up
        # to 127 * sh * w2_scale (0.02-0.07): far outside the bounds (run 22)
        g64 = out.to(tl.float64)
        out = (g64 / (1.0 + tl.exp(-g64)) * up.to(tl.float64)).to(tl.float32)
        out = tl.where(mask, out, 0.0)
        tl.store(amax_ptr + offs_m.to(tl.int64) * tl.num_programs(1) + pid_n,
                 tl.max(tl.abs(out), axis=1), mask=mask_m)
    tl.store(o_ptr + offs_m[:, None].to(tl.int64) * N + offs_n[None, :],
             out.to(o_ptr.dtype.element_ty), mask=mask)


def run(x, w13, w13_scale, w2, w2_scale):
    T, DM = x.shape
    F = w13.shape[0] // 2
    dev = x.device
    BM, BN, BK = 64, 64, 32
    xq = torch.empty((T, DM), dtype=torch.int8, device=dev)
    sx = torch.empty((T,), dtype=torch.float32, device=dev)
    _quant_rows_kernel[(T,)](x, sx, 0, xq, sx, DM, HAS_AMAX=False, BLOCK=256)
    n_tiles = triton.cdiv(F, BN)
    h = torch.empty((T, F), dtype=torch.float32, device=dev)
    amax = torch.empty((T, n_tiles), dtype=torch.float32, device=dev)
    _int8_gemm_kernel[(triton.cdiv(T, BM), n_tiles)](xq, sx, w13, w13_scale, h, amax, T, F, DM,
                                                     F, SWIGLU=True, BLOCK_M=BM, BLOCK_N=BN,
                                                     BLOCK_K=BK, num_warps=4, num_stages=3)
    hq = torch.empty((T, F), dtype=torch.int8, device=dev)
    sh = torch.empty((T,), dtype=torch.float32, device=dev)
    _quant_rows_kernel[(T,)](h, amax, n_tiles, hq, sh, F, HAS_AMAX=True,
                             BLOCK=max(256, triton.next_power_of_2(n_tiles)))
    y = torch.empty((T, DM), dtype=x.dtype, device=dev)
    _int8_gemm_kernel[(triton.cdiv(T, BM), triton.cdiv(DM, BN))](hq, sh, w2, w2_scale, y, sh,
                                                                 T, DM, F, 0, SWIGLU=False,
                                                                 BLOCK_M=BM, BLOCK_N=BN,
                                                                 BLOCK_K=BK, num_warps=4,
                                                                 num_stages=3)
    return y
