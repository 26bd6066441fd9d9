import torch
import triton
import triton.language as tl


@triton.jit
def _tile_ids(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
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
def _hidden_grads_kernel(x_ptr, dy_ptr, wg_ptr, wu_ptr, wd_ptr, dg_ptr, du_ptr, M, F, K,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         GROUP_M: tl.constexpr):
    # g = x @ wg.T, u = x @ wu.T, dh = dy @ wd over one K = DM loop, then the gelu*mul backward
    pid_m, pid_n = _tile_ids(M, F, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < F
    a_off = offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    wt_off = offs_n[None, :].to(tl.int64) * K + offs_k[:, None]  # w_gate / w_up [F, K] as .T
    wd_off = offs_k[:, None].to(tl.int64) * F + offs_n[None, :]  # w_down [K, F] as is
    acc_g = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_u = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_dh = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_mask = offs_k < K - k0
        a_mask = mask_m[:, None] & k_mask[None, :]
        w_mask = k_mask[:, None] & mask_n[None, :]
        x = tl.load(x_ptr + a_off, mask=a_mask, other=0.0)
        dy = tl.load(dy_ptr + a_off, mask=a_mask, other=0.0)
        wg = tl.load(wg_ptr + wt_off, mask=w_mask, other=0.0)
        wu = tl.load(wu_ptr + wt_off, mask=w_mask, other=0.0)
        wd = tl.load(wd_ptr + wd_off, mask=w_mask, other=0.0)
        acc_g = tl.dot(x, wg, acc_g, input_precision="ieee")
        acc_u = tl.dot(x, wu, acc_u, input_precision="ieee")
        acc_dh = tl.dot(dy, wd, acc_dh, input_precision="ieee")
        a_off += BLOCK_K
        wt_off += BLOCK_K
        wd_off += BLOCK_K * F
    # gelu_tanh(g) = 0.5 g (1 + t), t = tanh(c (g + 0.044715 g^3)); tanh(a) = 2 sigmoid(2a) - 1
    g = acc_g
    inner = 0.7978845608028654 * (g + 0.044715 * g * g * g)
    inner = tl.minimum(tl.maximum(inner, -15.0), 15.0)  # tanh is +-1 in float32 past 9
    t = 2.0 / (1.0 + tl.exp(-2.0 * inner)) - 1.0
    gelu = 0.5 * g * (1.0 + t)
    dgelu = 0.5 * (1.0 + t) + 0.5 * g * (1.0 - t * t) * 0.7978845608028654 * (
        1.0 + 3.0 * 0.044715 * g * g)
    dg = acc_dh * acc_u * dgelu
    du = acc_dh * gelu
    mask = mask_m[:, None] & mask_n[None, :]
    offs = offs_m[:, None].to(tl.int64) * F + offs_n[None, :]
    tl.store(dg_ptr + offs, dg.to(dg_ptr.dtype.element_ty), mask=mask)
    tl.store(du_ptr + offs, du.to(du_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _dx_kernel(dg_ptr, du_ptr, wg_ptr, wu_ptr, dx_ptr, M, N, K,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
               GROUP_M: tl.constexpr):
    # dx = dg @ wg + du @ wu, dg/du [M, K=F], wg/wu [K=F, N=DM] read as is
    pid_m, pid_n = _tile_ids(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    a_off = offs_m[:, None].to(tl.int64) * K + offs_k[None, :]
    w_off = offs_k[:, None].to(tl.int64) * N + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_mask = offs_k < K - k0
        a_mask = mask_m[:, None] & k_mask[None, :]
        w_mask = k_mask[:, None] & mask_n[None, :]
        dg = tl.load(dg_ptr + a_off, mask=a_mask, other=0.0)
        du = tl.load(du_ptr + a_off, mask=a_mask, other=0.0)
        wg = tl.load(wg_ptr + w_off, mask=w_mask, other=0.0)
        wu = tl.load(wu_ptr + w_off, mask=w_mask, other=0.0)
        acc = tl.dot(dg, wg, acc, input_precision="ieee")
        acc = tl.dot(du, wu, acc, input_precision="ieee")
        a_off += BLOCK_K
        w_off += BLOCK_K * N
    offs = offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
    tl.store(dx_ptr + offs, acc.to(dx_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(x, w_gate, w_up, w_down, grad_out):
    M, DM = x.shape
    F = w_gate.shape[0]
    dg = torch.empty((M, F), dtype=x.dtype, device=x.device)
    du = torch.empty((M, F), dtype=x.dtype, device=x.device)
    dx = torch.empty((M, DM), dtype=x.dtype, device=x.device)
    BM, BK, GM = 128, 32, 8
    _hidden_grads_kernel[(triton.cdiv(M, BM) * triton.cdiv(F, 64),)](
        x, grad_out, w_gate, w_up, w_down, dg, du, M, F, DM, BLOCK_M=BM, BLOCK_N=64,
        BLOCK_K=BK, GROUP_M=GM, num_warps=8, num_stages=3)
    _dx_kernel[(triton.cdiv(M, BM) * triton.cdiv(DM, 128),)](
        dg, du, w_gate, w_up, dx, M, DM, F, BLOCK_M=BM, BLOCK_N=128, BLOCK_K=BK, GROUP_M=GM,
        num_warps=8, num_stages=3)
    return dx
