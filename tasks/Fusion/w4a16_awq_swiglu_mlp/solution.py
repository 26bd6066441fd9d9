import torch
import triton
import triton.language as tl


@triton.jit
def _awq_tile(qw_ptr, qz_ptr, s_ptr, k, rn, n_ok, N, group, shift, dtype):
    # the dequantized [BLOCK_K, BLOCK_N] tile of W at rows k, columns rn, rounded to dtype
    packed_cols = N // 8
    qw = tl.load(qw_ptr + k[:, None].to(tl.int64) * packed_cols + (rn // 8)[None, :],
                 mask=n_ok[None, :], other=0)
    qz = tl.load(qz_ptr + group * packed_cols + rn // 8, mask=n_ok, other=0)
    scale = tl.load(s_ptr + group * N + rn, mask=n_ok, other=0.0).to(tl.float32)
    codes = (qw >> shift[None, :]) & 0xF
    zeros = (qz >> shift) & 0xF
    return ((codes - zeros[None, :]).to(tl.float32) * scale[None, :]).to(dtype)


@triton.jit
def _awq_mlp_kernel(x_ptr, qw_ptr, qz_ptr, s_ptr, out_ptr, M, N, K, NW, SWIGLU: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # out[:, :N] = x @ W[:, :N]; SWIGLU: out = silu(x @ W[:, :N]) * (x @ W[:, N:2N]), W having
    # NW columns
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    j = rn % 8
    shift = 4 * ((j // 2) + 4 * (j % 2))  # AWQ's interleaved nibble of column j
    dt = x_ptr.dtype.element_ty
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):  # BLOCK_K divides 128: one group per step
        k = k0 + rk
        x = tl.load(x_ptr + rm[:, None].to(tl.int64) * K + k[None, :], mask=m_ok[:, None],
                    other=0.0)
        group = k0 // 128
        w = _awq_tile(qw_ptr, qz_ptr, s_ptr, k, rn, n_ok, NW, group, shift, dt)
        acc = tl.dot(x, w, acc)
        if SWIGLU:
            w2 = _awq_tile(qw_ptr, qz_ptr, s_ptr, k, rn + N, n_ok, NW, group, shift, dt)
            acc2 = tl.dot(x, w2, acc2)
    if SWIGLU:
        acc = acc / (1.0 + tl.exp(-acc)) * acc2
    tl.store(out_ptr + rm[:, None].to(tl.int64) * N + rn[None, :],
             acc.to(out_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def run(x, gu_qweight, gu_qzeros, gu_scales, d_qweight, d_qzeros, d_scales):
    T, DM = x.shape
    F = gu_scales.shape[1] // 2
    h = torch.empty((T, F), dtype=x.dtype, device=x.device)
    y = torch.empty((T, DM), dtype=x.dtype, device=x.device)
    BM, BN, BK = 32, 64, 64
    _awq_mlp_kernel[(triton.cdiv(T, BM), triton.cdiv(F, BN))](
        x, gu_qweight, gu_qzeros, gu_scales, h, T, F, DM, 2 * F, SWIGLU=True, BLOCK_M=BM,
        BLOCK_N=BN, BLOCK_K=BK, num_warps=4)
    _awq_mlp_kernel[(triton.cdiv(T, BM), triton.cdiv(DM, BN))](
        h, d_qweight, d_qzeros, d_scales, y, T, DM, F, DM, SWIGLU=False, BLOCK_M=BM,
        BLOCK_N=BN, BLOCK_K=BK, num_warps=4)
    return y
