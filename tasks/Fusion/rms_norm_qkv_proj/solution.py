import torch
import triton
import triton.language as tl


@triton.jit
def _inv_rms_kernel(x_ptr, r_ptr, M, K, eps, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    # r[i] = rsqrt(mean(x[i]^2) + eps) for BLOCK_R rows at a time
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    acc = tl.zeros((BLOCK_R, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        mask = (rows[:, None] < M) & (cols[None, :] < K)
        x = tl.load(x_ptr + rows[:, None].to(tl.int64) * K + cols[None, :], mask=mask,
                    other=0.0).to(tl.float32)
        acc += x * x
    r = 1.0 / tl.sqrt(tl.sum(acc, axis=1) / K + eps)
    tl.store(r_ptr + rows, r, mask=rows < M)


@triton.jit
def _normed_matmul_kernel(x_ptr, r_ptr, nw_ptr, w_ptr, y_ptr, M, N, K,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
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
    mask_n = offs_n < N
    r = tl.load(r_ptr + offs_m, mask=mask_m, other=0.0)
    x_ptrs = x_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        k_mask = offs_k < k_left
        x = tl.load(x_ptrs, mask=mask_m[:, None] & k_mask[None, :], other=0.0)
        nw = tl.load(nw_ptr + k0 + offs_k, mask=k_mask, other=0.0).to(tl.float32)
        # the normalized tile, rounded to the input dtype like the eager xn
        xn = (x.to(tl.float32) * r[:, None] * nw[None, :]).to(x.dtype)
        w = tl.load(w_ptrs, mask=k_mask[:, None] & mask_n[None, :], other=0.0)
        acc = tl.dot(xn, w, acc, input_precision="ieee")
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    y_ptrs = y_ptr + offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(x, norm_weight, w_qkv):
    M, DM = x.shape
    N = w_qkv.shape[0]
    r = torch.empty((M,), dtype=torch.float32, device=x.device)
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    _inv_rms_kernel[(triton.cdiv(M, 16),)](x, r, M, DM, 1e-6, BLOCK_R=16, BLOCK_K=256,
                                           num_warps=4)
    BM, BN, BK, GM = 128, 128, 32, 8
    _normed_matmul_kernel[(triton.cdiv(M, BM) * triton.cdiv(N, BN),)](
        x, r, norm_weight, w_qkv, y, M, N, DM, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=GM,
        num_warps=8, num_stages=3)
    return y
