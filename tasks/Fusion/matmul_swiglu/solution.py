import torch
import triton
import triton.language as tl


@triton.jit
def _matmul_swiglu_kernel(x_ptr, w_ptr, o_ptr, M, F, K,
                          stride_xm, stride_xk, stride_wn, stride_wk, stride_om,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(F, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < F
    x_ptrs = x_ptr + offs_m[:, None].to(tl.int64) * stride_xm + offs_k[None, :] * stride_xk
    # gate rows j and up rows F + j of w, both read as [BLOCK_K, BLOCK_N] tiles of w.T
    wg_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :].to(tl.int64) * stride_wn
    wu_ptrs = (w_ptr + offs_k[:, None] * stride_wk
               + (F + offs_n[None, :]).to(tl.int64) * stride_wn)
    acc_g = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_u = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        x = tl.load(x_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        w_mask = (offs_k[:, None] < k_left) & mask_n[None, :]
        wg = tl.load(wg_ptrs, mask=w_mask, other=0.0)
        wu = tl.load(wu_ptrs, mask=w_mask, other=0.0)
        acc_g = tl.dot(x, wg, acc_g, input_precision="ieee")
        acc_u = tl.dot(x, wu, acc_u, input_precision="ieee")
        x_ptrs += BLOCK_K * stride_xk
        wg_ptrs += BLOCK_K * stride_wk
        wu_ptrs += BLOCK_K * stride_wk

    out = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u
    o_ptrs = o_ptr + offs_m[:, None].to(tl.int64) * stride_om + offs_n[None, :]
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(x, w):
    M, K = x.shape
    F = w.shape[0] // 2
    out = torch.empty((M, F), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 128, 64, 32, 8
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(F, BLOCK_N),)
    _matmul_swiglu_kernel[grid](x, w, out, M, F, K, x.stride(0), x.stride(1), w.stride(0),
                                w.stride(1), out.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, num_warps=8, num_stages=3)
    return out
