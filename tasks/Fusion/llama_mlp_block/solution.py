import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(x_ptr, w_ptr, n_ptr, N, eps, BLOCK: tl.constexpr):
    # one row: the mean of squares over the whole row (looped in blocks), then x * rstd * w
    row = tl.program_id(0).to(tl.int64) * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for c in range(0, N, BLOCK):
        offs = c + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row + offs, mask=offs < N, other=0.0).to(tl.float32)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    for c in range(0, N, BLOCK):
        offs = c + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row + offs, mask=offs < N, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=offs < N, other=0.0).to(tl.float32)
        tl.store(n_ptr + row + offs, (x * rstd * w).to(n_ptr.dtype.element_ty), mask=offs < N)


@triton.jit
def _gate_up_kernel(n_ptr, w_ptr, h_ptr, M, F, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr):
    # h = silu(n @ w[:F].T) * (n @ w[F:].T) from the merged gate_up weight [2F, K]
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < F
    a_ptrs = n_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    g_off = offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    u_off = g_off + F * K
    acc_g = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_u = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        w_mask = (offs_k[:, None] < k_left) & mask_n[None, :]
        wg = tl.load(w_ptr + g_off, mask=w_mask, other=0.0)
        wu = tl.load(w_ptr + u_off, mask=w_mask, other=0.0)
        acc_g = tl.dot(a, wg, acc_g, input_precision="ieee")
        acc_u = tl.dot(a, wu, acc_u, input_precision="ieee")
        a_ptrs += BLOCK_K
        g_off += BLOCK_K
        u_off += BLOCK_K
    h = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u
    tl.store(h_ptr + offs_m[:, None].to(tl.int64) * F + offs_n[None, :],
             h.to(h_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


@triton.jit
def _down_residual_kernel(h_ptr, wd_ptr, x_ptr, y_ptr, M, N, K, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # y = x + h @ wd.T, the residual added to the float32 accumulator
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    h_ptrs = h_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    w_ptrs = wd_ptr + offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        h = tl.load(h_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        w = tl.load(w_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        acc = tl.dot(h, w, acc, input_precision="ieee")
        h_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    offs = offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    mask = mask_m[:, None] & mask_n[None, :]
    acc += tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, acc.to(y_ptr.dtype.element_ty), mask=mask)


def run(x, norm_weight, w_gate_up, w_down, eps):
    M, DM = x.shape
    F = w_down.shape[1]
    n = torch.empty_like(x)
    h = torch.empty((M, F), dtype=x.dtype, device=x.device)
    y = torch.empty_like(x)
    _rms_norm_kernel[(M,)](x, norm_weight, n, DM, eps, BLOCK=min(1024, triton.next_power_of_2(DM)))
    BM, BN, BK = 64, 64, 32
    _gate_up_kernel[(triton.cdiv(M, BM), triton.cdiv(F, BN))](
        n, w_gate_up, h, M, F, DM, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, num_warps=4, num_stages=3)
    _down_residual_kernel[(triton.cdiv(M, BM), triton.cdiv(DM, BN))](
        h, w_down, x, y, M, DM, F, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, num_warps=4, num_stages=3)
    return y
