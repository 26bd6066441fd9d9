import torch
import triton
import triton.language as tl

# 1. one program per row: h = x + residual (rounded, stored), the sum of squares, then hn and
#    its absmax, then the int8 codes and the row scale (h recomputed from x and residual in
#    every pass rather than re-read); the codes are the reference's: r from a float64 sum,
#    correctly rounded divisions (a flipped code is outside the bounds, run 22);
# 2. the int8 GEMM (int32 accumulation), dequantized with the row and channel scales.


@triton.jit
def _add_norm_quant_kernel(x_ptr, res_ptr, w_ptr, h_ptr, q_ptr, s_ptr, DM, eps,
                           BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * DM
    dt = h_ptr.dtype.element_ty
    ss = tl.zeros((BLOCK,), dtype=tl.float64)
    for k0 in range(0, DM, BLOCK):
        cols = k0 + tl.arange(0, BLOCK)
        mask = cols < DM
        x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
        rs = tl.load(res_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
        h = (x + rs).to(dt)
        tl.store(h_ptr + row + cols, h, mask=mask)
        hf = h.to(tl.float64)
        ss += hf * hf
    # r from a float64 mean of squares, rounded once (any order gives the same float32 r): in
    # float32 its last bit depends on the order, and it flips codes of hn at ties (run 22)
    r = (1.0 / tl.sqrt(tl.sum(ss, axis=0) / DM + eps)).to(tl.float32)  # sqrt.rn.f64
    amax = tl.zeros((BLOCK,), dtype=tl.float32)
    for k0 in range(0, DM, BLOCK):
        cols = k0 + tl.arange(0, BLOCK)
        mask = cols < DM
        x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
        rs = tl.load(res_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
        nw = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        hn = (x + rs).to(dt).to(tl.float32) * r * nw
        amax = tl.maximum(amax, tl.abs(hn))
    s = tl.div_rn(tl.max(amax, axis=0), 127.0)  # `/` is div.full.f32 on sm_90
    safe = tl.where(s > 0, s, 1.0)
    for k0 in range(0, DM, BLOCK):
        cols = k0 + tl.arange(0, BLOCK)
        mask = cols < DM
        x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
        rs = tl.load(res_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
        nw = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        hn = (x + rs).to(dt).to(tl.float32) * r * nw
        v = tl.minimum(tl.maximum(tl.div_rn(hn, safe), -127.0), 127.0)
        # adding and removing 1.5 * 2^23 rounds to the nearest integer, ties to even
        q = (v + 12582912.0) - 12582912.0
        tl.store(q_ptr + row + cols, q.to(tl.int8), mask=mask)
    tl.store(s_ptr + tl.program_id(0), s)


@triton.jit
def _int8_gemm_kernel(a_ptr, sa_ptr, w_ptr, sw_ptr, o_ptr, M, N, K,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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
    for k0 in range(0, K, BLOCK_K):
        k_mask = offs_k < K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & k_mask[None, :], other=0)
        w = tl.load(w_ptrs, mask=k_mask[:, None] & mask_n[None, :], other=0)
        acc = tl.dot(a, w, acc, out_dtype=tl.int32)  # Triton 3.6 asserts without it
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    sa = tl.load(sa_ptr + offs_m, mask=mask_m, other=0.0)
    sw = tl.load(sw_ptr + offs_n, mask=mask_n, other=0.0)
    out = (acc.to(tl.float32) * sa[:, None]) * sw[None, :]
    tl.store(o_ptr + offs_m[:, None].to(tl.int64) * N + offs_n[None, :],
             out.to(o_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(x, residual, norm_w, w, w_scale):
    T, DM = x.shape
    N = w.shape[0]
    dev = x.device
    h = torch.empty((T, DM), dtype=x.dtype, device=dev)
    q = torch.empty((T, DM), dtype=torch.int8, device=dev)
    s = torch.empty((T,), dtype=torch.float32, device=dev)
    _add_norm_quant_kernel[(T,)](x, residual, norm_w, h, q, s, DM, 1e-6, BLOCK=256)
    out = torch.empty((T, N), dtype=x.dtype, device=dev)
    BM, BN, BK = 64, 64, 32
    _int8_gemm_kernel[(triton.cdiv(T, BM), triton.cdiv(N, BN))](q, s, w, w_scale, out, T, N, DM,
                                                                BLOCK_M=BM, BLOCK_N=BN,
                                                                BLOCK_K=BK, num_warps=4,
                                                                num_stages=3)
    return out, h
