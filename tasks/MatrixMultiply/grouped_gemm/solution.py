import torch
import triton
import triton.language as tl


@triton.jit
def _grouped_gemm_kernel(x_ptr, w_ptr, off_ptr, y_ptr, E, N, K,
                         stride_xt, stride_xk, stride_we, stride_wk, stride_wn,
                         stride_yt, stride_yn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         BLOCK_E: tl.constexpr):
    # Program pid_m is the pid_m-th row tile over all groups (each group's rows tiled on their
    # own): find its group from the tile counts' running sum, computed on the device.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    e = tl.arange(0, BLOCK_E)
    starts = tl.load(off_ptr + e, mask=e < E, other=0)
    ends = tl.load(off_ptr + e + 1, mask=e < E, other=0)
    tiles = (ends - starts + BLOCK_M - 1) // BLOCK_M
    cum = tl.cumsum(tiles, axis=0)
    g = tl.sum((cum <= pid_m).to(tl.int32), axis=0)
    if g < E:
        first_tile = tl.sum(tl.where(e < g, tiles, 0), axis=0)
        row_start = tl.sum(tl.where(e == g, starts, 0), axis=0)
        row_end = tl.sum(tl.where(e == g, ends, 0), axis=0)
        offs_m = row_start + (pid_m - first_tile) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        mask_m = offs_m < row_end
        mask_n = offs_n < N
        x_ptrs = x_ptr + offs_m[:, None].to(tl.int64) * stride_xt + offs_k[None, :] * stride_xk
        w_ptrs = (w_ptr + g.to(tl.int64) * stride_we + offs_k[:, None] * stride_wk
                  + offs_n[None, :] * stride_wn)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            k_left = K - k0
            a = tl.load(x_ptrs, mask=mask_m[:, None] & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(w_ptrs, mask=(offs_k[:, None] < k_left) & mask_n[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
            x_ptrs += BLOCK_K * stride_xk
            w_ptrs += BLOCK_K * stride_wk
        y_ptrs = y_ptr + offs_m[:, None].to(tl.int64) * stride_yt + offs_n[None, :] * stride_yn
        tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def run(x: torch.Tensor, w: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    T, K = x.shape
    E, _, N = w.shape
    y = torch.empty((T, N), dtype=x.dtype, device=x.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 32
    # Worst case over every possible set of group sizes: each group adds at most one
    # partial tile.
    grid = (triton.cdiv(T, BLOCK_M) + E, triton.cdiv(N, BLOCK_N))
    _grouped_gemm_kernel[grid](x, w, offsets, y, E, N, K,
                               x.stride(0), x.stride(1), w.stride(0), w.stride(1), w.stride(2),
                               y.stride(0), y.stride(1),
                               BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                               BLOCK_E=triton.next_power_of_2(E), num_warps=4, num_stages=3)
    return y
