import torch
import triton
import triton.language as tl

FP8_MAX = tl.constexpr(448.0)


@triton.jit
def _partial_amax_kernel(x_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(partial_ptr + pid, tl.max(tl.abs(x), axis=0))


@triton.jit
def _scale_kernel(partial_ptr, scale_ptr, num_partials, BLOCK: tl.constexpr):
    # the grid-wide maximum from the partial maxima, then the per-tensor scale
    amax = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, num_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        amax = tl.maximum(amax, tl.load(partial_ptr + offs, mask=offs < num_partials, other=0.0))
    # correctly rounded (div.rn): Triton's `/` is div.full.f32 on sm_90, up to 2 ulps off
    tl.store(scale_ptr, tl.div_rn(tl.maximum(tl.max(amax, axis=0), 1e-10), FP8_MAX))


@triton.jit
def _quantize_kernel(x_ptr, q_ptr, scale_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    scale = tl.load(scale_ptr)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # z / s correctly rounded (div.rn, not div.full's approximation): a value within rounding
    # of a tie must round as the reference's does
    y = tl.minimum(tl.maximum(tl.div_rn(x, scale), -FP8_MAX), FP8_MAX)  # saturate, round once
    tl.store(q_ptr + offs, y.to(q_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _digits(codes):
    # e4m3 bytes -> three signed 7-bit int8 digits of code * 2^9 (an integer below 2^18):
    # normal codes (8 + m) << (e - 1), subnormal codes m
    b = codes.to(tl.int32)
    e = (b >> 3) & 15
    m = b & 7
    n = tl.where(e == 0, m, (m + 8) << tl.maximum(e - 1, 0))
    neg = (b & 128) != 0
    d0 = n & 127
    d1 = (n >> 7) & 127
    d2 = n >> 14
    return (tl.where(neg, -d0, d0).to(tl.int8), tl.where(neg, -d1, d1).to(tl.int8),
            tl.where(neg, -d2, d2).to(tl.int8))


@triton.jit
def _exact_step(a0, a1, a2, w0, w1, w2):
    # sum_k a[i, k] * w[k, n] of one K block, exactly, in units of 2^-18: nine int8 dots of
    # the digits (int32, exact), weighted by 2^(7 (i + j)) in int64
    zero = tl.zeros((a0.shape[0], w0.shape[1]), dtype=tl.int32)
    s = tl.dot(a0, w0, zero, out_dtype=tl.int32).to(tl.int64)
    s += (tl.dot(a0, w1, zero, out_dtype=tl.int32) +
          tl.dot(a1, w0, zero, out_dtype=tl.int32)).to(tl.int64) << 7
    s += (tl.dot(a0, w2, zero, out_dtype=tl.int32) + tl.dot(a1, w1, zero, out_dtype=tl.int32) +
          tl.dot(a2, w0, zero, out_dtype=tl.int32)).to(tl.int64) << 14
    s += (tl.dot(a1, w2, zero, out_dtype=tl.int32) +
          tl.dot(a2, w1, zero, out_dtype=tl.int32)).to(tl.int64) << 21
    s += tl.dot(a2, w2, zero, out_dtype=tl.int32).to(tl.int64) << 28
    return s


@triton.jit
def _gate_up_kernel(xq_ptr, sx_ptr, w_ptr, ws_ptr, h_ptr, hmax_ptr, M, F, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # g|u = the exact sums of the fp8 products rounded once to float32, then both scales in
    # float32; h = silu(g) * u evaluated in float64 and rounded once to float32; each program
    # also writes the maximum |h| of its tile (for the next per-tensor scale).
    # Every bit of h matters: h is quantized again with a per-tensor scale, and a code that
    # rounds the other way at a tie moves a whole row of y by up to ~0.03 at the GPU shapes,
    # far beyond atol. A float16 wgmma (run 20's fix) accumulates toward zero and put 0.07%
    # of y outside the bounds on an H100; a float32 sum in any order, or tl.exp's ex2.approx
    # and `/`'s div.full.f32 in float32, flip such codes too. So the sums are exact integers:
    # code * 2^9 is an integer below 2^18, split into three int8 digits (nine int8 tensor-core
    # dots a K block, each exact in int32, combined in int64: below 2^52 for K < 2^16)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < F
    a_ptrs = xq_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    g_off = offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    u_off = g_off + F * K
    acc_g = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int64)
    acc_u = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int64)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a0, a1, a2 = _digits(tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left),
                                     other=0))
        w_mask = (offs_k[:, None] < k_left) & mask_n[None, :]
        g0, g1, g2 = _digits(tl.load(w_ptr + g_off, mask=w_mask, other=0))
        acc_g += _exact_step(a0, a1, a2, g0, g1, g2)
        u0, u1, u2 = _digits(tl.load(w_ptr + u_off, mask=w_mask, other=0))
        acc_u += _exact_step(a0, a1, a2, u0, u1, u2)
        a_ptrs += BLOCK_K
        g_off += BLOCK_K
        u_off += BLOCK_K
    sx = tl.load(sx_ptr)
    sw = tl.load(ws_ptr)
    # int64 -> float32 rounds once (cvt.rn); the power of two is exact
    g = ((acc_g.to(tl.float32) * 3.814697265625e-06) * sx) * sw
    u = ((acc_u.to(tl.float32) * 3.814697265625e-06) * sx) * sw
    g64 = g.to(tl.float64)
    h = (g64 / (1.0 + tl.exp(-g64)) * u.to(tl.float64)).to(tl.float32)
    mask = mask_m[:, None] & mask_n[None, :]
    h = tl.where(mask, h, 0.0)
    tl.store(h_ptr + offs_m[:, None].to(tl.int64) * F + offs_n[None, :], h, mask=mask)
    tl.store(hmax_ptr + pid_m * tl.num_programs(1) + pid_n, tl.max(tl.max(tl.abs(h), axis=1),
                                                                   axis=0))


@triton.jit
def _down_kernel(hq_ptr, sh_ptr, w_ptr, ws_ptr, y_ptr, M, N, K, BLOCK_M: tl.constexpr,
                 BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    a_ptrs = hq_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int64)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a0, a1, a2 = _digits(tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left),
                                     other=0))
        w0, w1, w2 = _digits(tl.load(w_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :],
                                     other=0))
        acc += _exact_step(a0, a1, a2, w0, w1, w2)  # exact: see _gate_up_kernel
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    y = ((acc.to(tl.float32) * 3.814697265625e-06) * tl.load(sh_ptr)) * tl.load(ws_ptr)
    tl.store(y_ptr + offs_m[:, None].to(tl.int64) * N + offs_n[None, :],
             y.to(y_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(x, w13, w13_scale, w2, w2_scale):
    T, DM = x.shape
    F = w2.shape[1]
    dev = x.device
    BLOCK = 1024
    nx = T * DM
    blocks = triton.cdiv(nx, BLOCK)
    partial = torch.empty((blocks,), dtype=torch.float32, device=dev)
    sx = torch.empty((1,), dtype=torch.float32, device=dev)
    xq = torch.empty((T, DM), dtype=torch.float8_e4m3fn, device=dev)
    _partial_amax_kernel[(blocks,)](x, partial, nx, BLOCK=BLOCK)
    _scale_kernel[(1,)](partial, sx, blocks, BLOCK=128)
    _quantize_kernel[(blocks,)](x, xq, sx, nx, BLOCK=BLOCK)
    BM, BN, BK = 64, 32, 32
    grid = (triton.cdiv(T, BM), triton.cdiv(F, BN))
    h = torch.empty((T, F), dtype=torch.float32, device=dev)
    hmax = torch.empty((grid[0] * grid[1],), dtype=torch.float32, device=dev)
    # the codes as their bytes (views, no copies): the kernels take the e4m3 bits apart
    _gate_up_kernel[grid](xq.view(torch.uint8), sx, w13.view(torch.uint8), w13_scale, h, hmax,
                          T, F, DM, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, num_warps=4,
                          num_stages=3)
    sh = torch.empty((1,), dtype=torch.float32, device=dev)
    _scale_kernel[(1,)](hmax, sh, grid[0] * grid[1], BLOCK=128)
    nh = T * F
    hq = torch.empty((T, F), dtype=torch.float8_e4m3fn, device=dev)
    _quantize_kernel[(triton.cdiv(nh, BLOCK),)](h, hq, sh, nh, BLOCK=BLOCK)
    y = torch.empty((T, DM), dtype=x.dtype, device=dev)
    _down_kernel[(triton.cdiv(T, BM), triton.cdiv(DM, 64))](
        hq.view(torch.uint8), sh, w2.view(torch.uint8), w2_scale, y, T, DM, F, BLOCK_M=BM,
        BLOCK_N=64, BLOCK_K=BK, num_warps=4, num_stages=3)
    return y
