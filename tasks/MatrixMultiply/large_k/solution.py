import torch
import triton
import triton.language as tl


@triton.jit
def _splitk_partial_kernel(a_ptr, b_ptr, ws_ptr, M, N, K, K_PER_SPLIT,
                           stride_am, stride_ak, stride_bk, stride_bn,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # Program (tile, split s) sums k in [s * K_PER_SPLIT, (s + 1) * K_PER_SPLIT) into its own
    # float32 slice of the workspace [SPLITS, M, N]: no atomics, deterministic.
    pid_mn = tl.program_id(0)
    split = tl.program_id(1)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid_mn % num_pid_m
    pid_n = pid_mn // num_pid_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    k_start = split.to(tl.int64) * K_PER_SPLIT
    k_end = tl.minimum(k_start + K_PER_SPLIT, K)
    a_ptrs = a_ptr + offs_m[:, None].to(tl.int64) * stride_am + (k_start + offs_k[None, :]) * stride_ak
    b_ptrs = b_ptr + (k_start + offs_k[:, None]) * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K_PER_SPLIT, BLOCK_K):
        k_left = k_end - k_start - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    ws_ptrs = ws_ptr + (split.to(tl.int64) * M + offs_m[:, None]) * N + offs_n[None, :]
    tl.store(ws_ptrs, acc, mask=mask_m[:, None] & mask_n[None, :])


@triton.jit
def _splitk_reduce_kernel(ws_ptr, c_ptr, MN, SPLITS, BLOCK: tl.constexpr):
    # Sum the SPLITS partial tiles in a fixed order, round once.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for s in range(0, SPLITS):
        acc += tl.load(ws_ptr + s * MN + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc.to(c_ptr.dtype.element_ty), mask=mask)


def run(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    BLOCK_M = 64 if M > 32 else 32
    BLOCK_N = 64 if N > 32 else 32
    BLOCK_K = 64
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    # Enough splits to fill ~4 waves of a large GPU, each split at least 4 K blocks long.
    splits = max(1, min(triton.cdiv(528, tiles), triton.cdiv(K, 4 * BLOCK_K)))
    k_per_split = triton.cdiv(triton.cdiv(K, splits), BLOCK_K) * BLOCK_K
    splits = triton.cdiv(K, k_per_split)
    ws = torch.empty((splits, M, N), dtype=torch.float32, device=a.device)
    _splitk_partial_kernel[(tiles, splits)](a, b, ws, M, N, K, k_per_split,
                                            a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                            num_warps=4, num_stages=4)
    BLOCK = 1024
    _splitk_reduce_kernel[(triton.cdiv(M * N, BLOCK),)](ws, c, M * N, splits, BLOCK=BLOCK)
    return c
