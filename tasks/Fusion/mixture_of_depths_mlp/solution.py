import torch
import triton
import triton.language as tl


@triton.jit
def _rank_kernel(r_ptr, idx_ptr, S, C, BLOCK_Q: tl.constexpr, BLOCK_K: tl.constexpr):
    # rank of each token in its sequence (larger weight first, ties to the earlier token); the
    # `C` best write their row index into the sequence's slot `rank`: unique slots, no atomics
    b = tl.program_id(1)
    offs_q = tl.program_id(0) * BLOCK_Q + tl.arange(0, BLOCK_Q)
    q_mask = offs_q < S
    rq = tl.load(r_ptr + b * S + offs_q, mask=q_mask, other=0.0)
    rank = tl.zeros([BLOCK_Q], dtype=tl.int32)
    for k0 in range(0, S, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        k_mask = offs_k < S
        rk = tl.load(r_ptr + b * S + offs_k, mask=k_mask, other=0.0)
        before = (rk[None, :] > rq[:, None]) | ((rk[None, :] == rq[:, None])
                                                & (offs_k[None, :] < offs_q[:, None]))
        rank += tl.sum((before & k_mask[None, :]).to(tl.int32), axis=1)
    keep = q_mask & (rank < C)
    tl.store(idx_ptr + b * C + rank, b * S + offs_q, mask=keep)


@triton.jit
def _copy_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    # the residual path of every token (the routed ones are overwritten afterwards)
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < N), mask=offs < N)


@triton.jit
def _gate_up_kernel(x_ptr, idx_ptr, w_ptr, h_ptr, M, F, K, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # h = silu(xs @ w[:F].T) * (xs @ w[F:].T) over the gathered routed rows xs
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < F
    rows = tl.load(idx_ptr + offs_m, mask=mask_m, other=0).to(tl.int64)
    a_ptrs = x_ptr + rows[:, None] * K + offs_k[None, :]
    g_off = offs_n[None, :].to(tl.int64) * K + offs_k[:, None]
    u_off = g_off + F * K
    acc_g = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_u = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        w_mask = (offs_k[:, None] < k_left) & mask_n[None, :]
        acc_g = tl.dot(a, tl.load(w_ptr + g_off, mask=w_mask, other=0.0), acc_g,
                       input_precision="ieee")
        acc_u = tl.dot(a, tl.load(w_ptr + u_off, mask=w_mask, other=0.0), acc_u,
                       input_precision="ieee")
        a_ptrs += BLOCK_K
        g_off += BLOCK_K
        u_off += BLOCK_K
    h = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u
    tl.store(h_ptr + offs_m[:, None].to(tl.int64) * F + offs_n[None, :],
             h.to(h_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


@triton.jit
def _down_scatter_kernel(h_ptr, wd_ptr, x_ptr, r_ptr, idx_ptr, y_ptr, M, N, K,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # y[row] = x[row] + r[row] * (h @ wd.T) for the routed rows, in float32, rounded once
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
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
    rows = tl.load(idx_ptr + offs_m, mask=mask_m, other=0)
    r = tl.load(r_ptr + rows, mask=mask_m, other=0.0)
    offs = rows.to(tl.int64)[:, None] * N + offs_n[None, :]
    mask = mask_m[:, None] & mask_n[None, :]
    xv = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (xv + r[:, None] * acc).to(y_ptr.dtype.element_ty), mask=mask)


def run(x, router, w_gate_up, w_down, capacity):
    B, S, DM = x.shape
    F = w_down.shape[1]
    M = B * capacity
    idx = torch.empty((M,), dtype=torch.int32, device=x.device)
    h = torch.empty((M, F), dtype=x.dtype, device=x.device)
    y = torch.empty_like(x)
    _rank_kernel[(triton.cdiv(S, 64), B)](router, idx, S, capacity, BLOCK_Q=64, BLOCK_K=64)
    _copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    BM, BN, BK = 64, 64, 32
    _gate_up_kernel[(triton.cdiv(M, BM), triton.cdiv(F, BN))](
        x, idx, w_gate_up, h, M, F, DM, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, num_warps=4,
        num_stages=3)
    _down_scatter_kernel[(triton.cdiv(M, BM), triton.cdiv(DM, BN))](
        h, w_down, x, router, idx, y, M, DM, F, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, num_warps=4,
        num_stages=3)
    return y
