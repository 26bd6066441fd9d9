import torch
import triton
import triton.language as tl

SQRT_2_OVER_PI = tl.constexpr(0.7978845608028654)


@triton.jit
def _layer_norm_kernel(x_ptr, w_ptr, b_ptr, xn_ptr, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(xn_ptr + row * N + cols, (d * rstd * w + b).to(xn_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _linear_kernel(a_ptr, w_ptr, bias_ptr, r_ptr, o_ptr, M, N, K,
                   GELU: tl.constexpr, RESIDUAL: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr):
    # o = epilogue(a @ w.T + bias): GELU (tanh) or + residual
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
    a_ptrs = a_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        w = tl.load(w_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        acc = tl.dot(a, w, acc, input_precision="ieee")
        a_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    acc += tl.load(bias_ptr + offs_n, mask=mask_n, other=0.0).to(tl.float32)[None, :]
    mask = mask_m[:, None] & mask_n[None, :]
    offs = offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    if GELU:
        u = SQRT_2_OVER_PI * (acc + 0.044715 * acc * acc * acc)
        acc = acc / (1.0 + tl.exp(-2.0 * u))  # 0.5 * (1 + tanh(u)) = sigmoid(2u)
    if RESIDUAL:
        acc += tl.load(r_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(o_ptr + offs, acc.to(o_ptr.dtype.element_ty), mask=mask)


def run(x, ln_weight, ln_bias, w1, b1, w2, b2):
    M, DM = x.shape
    F = w1.shape[0]
    xn = torch.empty((M, DM), dtype=x.dtype, device=x.device)
    h = torch.empty((M, F), dtype=x.dtype, device=x.device)
    y = torch.empty((M, DM), dtype=x.dtype, device=x.device)
    BLOCK = triton.next_power_of_2(DM)
    _layer_norm_kernel[(M,)](x, ln_weight, ln_bias, xn, DM, 1e-5, BLOCK_N=BLOCK,
                             num_warps=4 if BLOCK <= 2048 else 8)
    BM, BN, BK, GM = 128, 128, 32, 8
    _linear_kernel[(triton.cdiv(M, BM) * triton.cdiv(F, BN),)](
        xn, w1, b1, xn, h, M, F, DM, GELU=True, RESIDUAL=False, BLOCK_M=BM, BLOCK_N=BN,
        BLOCK_K=BK, GROUP_M=GM, num_warps=8, num_stages=3)
    _linear_kernel[(triton.cdiv(M, BM) * triton.cdiv(DM, BN),)](
        h, w2, b2, x, y, M, DM, F, GELU=False, RESIDUAL=True, BLOCK_M=BM, BLOCK_N=BN,
        BLOCK_K=BK, GROUP_M=GM, num_warps=8, num_stages=3)
    return y
