import torch
import triton
import triton.language as tl


@triton.jit
def _w8a16_gemm_kernel(x_ptr, w_ptr, s_ptr, out_ptr, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k = k0 + rk
        k_ok = k < K
        x = tl.load(x_ptr + rm[:, None].to(tl.int64) * K + k[None, :],
                    mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        w = tl.load(w_ptr + rn[None, :].to(tl.int64) * K + k[:, None],
                    mask=n_ok[None, :] & k_ok[:, None], other=0)
        acc = tl.dot(x, w.to(x.dtype), acc)  # int8 codes are exact in float16 and bfloat16
    s = tl.load(s_ptr + rn, mask=n_ok, other=0.0).to(tl.float32)
    out = acc * s[None, :]  # the per-channel scale after the dot, as TensorRT-LLM's epilogue
    tl.store(out_ptr + rm[:, None].to(tl.int64) * N + rn[None, :],
             out.to(out_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def run(x, weight, scale):
    M, K = x.shape
    N = weight.shape[0]
    x, weight, scale = x.contiguous(), weight.contiguous(), scale.contiguous()
    out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 32, 64, 64
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _w8a16_gemm_kernel[grid](x, weight, scale, out, M, N, K, BLOCK_M=BLOCK_M,
                             BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return out
