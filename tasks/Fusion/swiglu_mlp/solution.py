import torch
import triton
import triton.language as tl


@triton.jit
def _tile_ids(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # grouped ordering: programs running together share rows of A and weight tiles in L2
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def _gate_up_kernel(x_ptr, wg_ptr, wu_ptr, h_ptr, M, F, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                    GROUP_M: tl.constexpr):
    # h = silu(x @ wg.T) * (x @ wu.T): both products share the x tiles
    pid_m, pid_n = _tile_ids(M, F, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < F
    x_ptrs = x_ptr + offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    w_off = offs_n[None, :].to(tl.int64) * K + offs_k[:, None]  # [BLOCK_K, BLOCK_N] of w.T
    acc_g = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_u = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        x = tl.load(x_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        w_mask = (offs_k[:, None] < k_left) & mask_n[None, :]
        wg = tl.load(wg_ptr + w_off, mask=w_mask, other=0.0)
        wu = tl.load(wu_ptr + w_off, mask=w_mask, other=0.0)
        acc_g = tl.dot(x, wg, acc_g, input_precision="ieee")
        acc_u = tl.dot(x, wu, acc_u, input_precision="ieee")
        x_ptrs += BLOCK_K
        w_off += BLOCK_K
    h = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u
    h_ptrs = h_ptr + offs_m[:, None].to(tl.int64) * F + offs_n[None, :]
    tl.store(h_ptrs, h.to(h_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


@triton.jit
def _down_kernel(h_ptr, wd_ptr, y_ptr, M, N, K,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 GROUP_M: tl.constexpr):
    # y = h @ wd.T with wd [N, K]
    pid_m, pid_n = _tile_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
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
    y_ptrs = y_ptr + offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(x, w_gate, w_up, w_down):
    M, DM = x.shape
    F = w_gate.shape[0]
    h = torch.empty((M, F), dtype=x.dtype, device=x.device)
    y = torch.empty((M, DM), dtype=x.dtype, device=x.device)
    BM, BK, GM = 128, 32, 8
    _gate_up_kernel[(triton.cdiv(M, BM) * triton.cdiv(F, 64),)](
        x, w_gate, w_up, h, M, F, DM, BLOCK_M=BM, BLOCK_N=64, BLOCK_K=BK, GROUP_M=GM,
        num_warps=8, num_stages=3)
    _down_kernel[(triton.cdiv(M, BM) * triton.cdiv(DM, 128),)](
        h, w_down, y, M, DM, F, BLOCK_M=BM, BLOCK_N=128, BLOCK_K=BK, GROUP_M=GM,
        num_warps=8, num_stages=3)
    return y
