import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}, num_warps=4, num_stages=3),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, NB2,
                sa_b1, sa_b2, sa_m, sa_k, sb_b1, sb_b2, sb_k, sb_n, sc_b1, sc_b2, sc_m, sc_n,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # Axis 0: output tiles of one matrix (column-major over tiles so neighbours share b);
    # axis 1: the batch index, split into two batch coordinates (b1, b2) with their own strides
    # (a stride of 0 broadcasts an operand over that coordinate).
    pid = tl.program_id(0)
    pid_b = tl.program_id(1)
    b1 = pid_b // NB2
    b2 = pid_b % NB2
    num_pid_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m
    a_base = a_ptr + b1.to(tl.int64) * sa_b1 + b2.to(tl.int64) * sa_b2
    b_base = b_ptr + b1.to(tl.int64) * sb_b1 + b2.to(tl.int64) * sb_b2
    c_base = c_ptr + b1.to(tl.int64) * sc_b1 + b2.to(tl.int64) * sc_b2

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    a_ptrs = a_base + offs_m[:, None].to(tl.int64) * sa_m + offs_k[None, :] * sa_k
    b_ptrs = b_base + offs_k[:, None] * sb_k + offs_n[None, :].to(tl.int64) * sb_n

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a = tl.load(a_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * sa_k
        b_ptrs += BLOCK_K * sb_k

    c_ptrs = c_base + offs_m[:, None].to(tl.int64) * sc_m + offs_n[None, :] * sc_n
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(a: torch.Tensor, b: torch.Tensor, grad_out: torch.Tensor):
    B, M, K = a.shape
    N = b.shape[2]
    grad_a = torch.empty((B, M, K), dtype=a.dtype, device=a.device)
    grad_b = torch.empty((B, K, N), dtype=a.dtype, device=a.device)
    g = grad_out
    # grad_a [M, K] = grad_out [M, N] @ b^T [N, K]: b read through swapped strides.
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(K, meta["BLOCK_N"]), B)
    _bmm_kernel[grid](g, b, grad_a, M, K, N, 1,
                      g.stride(0), 0, g.stride(1), g.stride(2),
                      b.stride(0), 0, b.stride(2), b.stride(1),
                      grad_a.stride(0), 0, grad_a.stride(1), grad_a.stride(2))
    # grad_b [K, N] = a^T [K, M] @ grad_out [M, N]: a read through swapped strides.
    grid = lambda meta: (triton.cdiv(K, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]), B)
    _bmm_kernel[grid](a, g, grad_b, K, N, M, 1,
                      a.stride(0), 0, a.stride(2), a.stride(1),
                      g.stride(0), 0, g.stride(1), g.stride(2),
                      grad_b.stride(0), 0, grad_b.stride(1), grad_b.stride(2))
    return grad_a, grad_b
