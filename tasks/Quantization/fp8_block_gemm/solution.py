import torch
import triton
import triton.language as tl


@triton.jit
def _fp8_block_gemm_kernel(a_ptr, as_ptr, b_ptr, bs_ptr, out_ptr, M, N, K, GK,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(0, GK):  # BLOCK_K == 128: one scale block per step
        k = kb * BLOCK_K + rk
        k_ok = k < K
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * K + k[None, :],
                    mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(b_ptr + rn[None, :].to(tl.int64) * K + k[:, None],
                    mask=n_ok[None, :] & k_ok[:, None], other=0.0)
        partial = tl.dot(a, b)
        sa = tl.load(as_ptr + rm * GK + kb, mask=m_ok, other=0.0)
        sb = tl.load(bs_ptr + (rn // 128) * GK + kb, mask=n_ok, other=0.0)
        acc += partial * sa[:, None] * sb[None, :]
    tl.store(out_ptr + rm[:, None].to(tl.int64) * N + rn[None, :],
             acc.to(out_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def run(a, a_scale, b, b_scale, out_dtype_probe):
    M, K = a.shape
    N = b.shape[0]
    GK = triton.cdiv(K, 128)
    a, b = a.contiguous(), b.contiguous()
    a_scale, b_scale = a_scale.contiguous(), b_scale.contiguous()
    out = torch.empty((M, N), dtype=out_dtype_probe.dtype, device=a.device)
    BLOCK_M, BLOCK_N = 64, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _fp8_block_gemm_kernel[grid](a, a_scale, b, b_scale, out, M, N, K, GK, BLOCK_M=BLOCK_M,
                                 BLOCK_N=BLOCK_N, BLOCK_K=128, num_warps=4)
    return out
