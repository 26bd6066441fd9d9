import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8},
                      num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8},
                      num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8},
                      num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8},
                      num_warps=4, num_stages=3),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                 stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
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
    a_ptrs = a_ptr + offs_m[:, None].to(tl.int64) * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :].to(tl.int64) * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + offs_m[:, None].to(tl.int64) * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


@triton.jit
def _colsum_partial_kernel(g_ptr, ws_ptr, M, N, ROWS_PER_SPLIT, stride_gm, stride_gn,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Program (column block, split s): float32 column sums of rows
    # [s * ROWS_PER_SPLIT, (s + 1) * ROWS_PER_SPLIT), written to ws[s, :].
    pid_n = tl.program_id(0)
    split = tl.program_id(1)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = cols < N
    row0 = split * ROWS_PER_SPLIT
    row_end = tl.minimum(row0 + ROWS_PER_SPLIT, M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for r in range(row0, row_end, BLOCK_M):
        rows = r + tl.arange(0, BLOCK_M)
        g = tl.load(g_ptr + rows[:, None].to(tl.int64) * stride_gm + cols[None, :] * stride_gn,
                    mask=(rows[:, None] < row_end) & mask_n[None, :], other=0.0)
        acc += g.to(tl.float32)
    tl.store(ws_ptr + split.to(tl.int64) * N + cols, tl.sum(acc, axis=0), mask=mask_n)


@triton.jit
def _colsum_final_kernel(ws_ptr, db_ptr, N, SPLITS, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for s in range(0, SPLITS):
        acc += tl.load(ws_ptr + s * N + cols, mask=mask, other=0.0)
    tl.store(db_ptr + cols, acc.to(db_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, w: torch.Tensor, grad_out: torch.Tensor):
    M, K = x.shape
    N = w.shape[0]
    dev, dt = x.device, x.dtype
    dx = torch.empty((M, K), dtype=dt, device=dev)
    dw = torch.empty((N, K), dtype=dt, device=dev)
    db = torch.empty((N,), dtype=dt, device=dev)
    # dx [M, K] = grad_out [M, N] @ w [N, K]
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]),)
    _gemm_kernel[grid](grad_out, w, dx, M, K, N, grad_out.stride(0), grad_out.stride(1),
                       w.stride(0), w.stride(1), dx.stride(0), dx.stride(1))
    # dw [N, K] = grad_out^T [N, M] @ x [M, K] (grad_out read through swapped strides)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]),)
    _gemm_kernel[grid](grad_out, x, dw, N, K, M, grad_out.stride(1), grad_out.stride(0),
                       x.stride(0), x.stride(1), dw.stride(0), dw.stride(1))
    # db [N] = column sums of grad_out, two deterministic passes
    BLOCK_M = 32
    BLOCK_N = min(128, triton.next_power_of_2(N))
    col_blocks = triton.cdiv(N, BLOCK_N)
    splits = max(1, min(triton.cdiv(1024, col_blocks), triton.cdiv(M, 128)))
    rows_per_split = triton.cdiv(triton.cdiv(M, splits), BLOCK_M) * BLOCK_M
    splits = triton.cdiv(M, rows_per_split)
    ws = torch.empty((splits, N), dtype=torch.float32, device=dev)
    _colsum_partial_kernel[(col_blocks, splits)](grad_out, ws, M, N, rows_per_split,
                                                 grad_out.stride(0), grad_out.stride(1),
                                                 BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    FIN_BLOCK = min(1024, triton.next_power_of_2(N))
    _colsum_final_kernel[(triton.cdiv(N, FIN_BLOCK),)](ws, db, N, splits, BLOCK_N=FIN_BLOCK)
    return dx, dw, db
