import torch
import triton
import triton.language as tl


@triton.jit
def _awq_gemm_kernel(x_ptr, qw_ptr, qz_ptr, s_ptr, out_ptr, M, N, K,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    j = rn % 8
    shift = 4 * ((j // 2) + 4 * (j % 2))  # AWQ's interleaved nibble of column j
    packed_cols = N // 8
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):  # BLOCK_K divides 128: one group per step
        k = k0 + rk
        x = tl.load(x_ptr + rm[:, None].to(tl.int64) * K + k[None, :],
                    mask=m_ok[:, None], other=0.0)
        qw = tl.load(qw_ptr + k[:, None].to(tl.int64) * packed_cols + (rn // 8)[None, :],
                     mask=n_ok[None, :], other=0)
        group = k0 // 128
        qz = tl.load(qz_ptr + group * packed_cols + rn // 8, mask=n_ok, other=0)
        scale = tl.load(s_ptr + group * N + rn, mask=n_ok, other=0.0).to(tl.float32)
        codes = (qw >> shift[None, :]) & 0xF
        zeros = (qz >> shift) & 0xF
        w = (codes - zeros[None, :]).to(tl.float32) * scale[None, :]
        acc = tl.dot(x, w.to(x.dtype), acc)
    tl.store(out_ptr + rm[:, None].to(tl.int64) * N + rn[None, :],
             acc.to(out_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def run(x, qweight, qzeros, scales):
    M, K = x.shape
    N = scales.shape[1]
    x, qweight, qzeros, scales = (x.contiguous(), qweight.contiguous(), qzeros.contiguous(),
                                  scales.contiguous())
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 32, 64, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _awq_gemm_kernel[grid](x, qweight, qzeros, scales, out, M, N, K, BLOCK_M=BLOCK_M,
                           BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return out
