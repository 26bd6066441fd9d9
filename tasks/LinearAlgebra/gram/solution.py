import torch
import triton
import triton.language as tl


@triton.jit
def _gram_kernel(x_ptr, g_ptr, M, N, stride_xm, stride_xn, stride_gi, stride_gj,
                 BLOCK: tl.constexpr, BLOCK_M: tl.constexpr):
    # Program (i, j) with i >= j computes the tile x[:, i-block]^T @ x[:, j-block] and stores it
    # at (i, j) and, transposed, at (j, i); programs above the diagonal exit at once. The
    # mirrored values are the same float32 numbers, so G is exactly symmetric.
    pid_i = tl.program_id(0)
    pid_j = tl.program_id(1)
    if pid_i >= pid_j:
        offs_i = pid_i * BLOCK + tl.arange(0, BLOCK)
        offs_j = pid_j * BLOCK + tl.arange(0, BLOCK)
        offs_m = tl.arange(0, BLOCK_M)
        mask_i = offs_i < N
        mask_j = offs_j < N
        acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
        for m0 in range(0, M, BLOCK_M):
            ms = m0 + offs_m
            mask_m = ms < M
            xi = tl.load(x_ptr + ms[None, :].to(tl.int64) * stride_xm + offs_i[:, None] * stride_xn,
                         mask=mask_i[:, None] & mask_m[None, :], other=0.0)
            xj = tl.load(x_ptr + ms[:, None].to(tl.int64) * stride_xm + offs_j[None, :] * stride_xn,
                         mask=mask_m[:, None] & mask_j[None, :], other=0.0)
            acc = tl.dot(xi, xj, acc, input_precision="ieee")
        out = acc.to(g_ptr.dtype.element_ty)
        mask = mask_i[:, None] & mask_j[None, :]
        if pid_i == pid_j:
            # Diagonal tile: symmetrise explicitly (keep the lower triangle, mirror it up).
            lower = offs_i[:, None] >= offs_j[None, :]
            tl.store(g_ptr + offs_i[:, None] * stride_gi + offs_j[None, :] * stride_gj, out,
                     mask=mask & lower)
            tl.store(g_ptr + offs_j[None, :] * stride_gi + offs_i[:, None] * stride_gj, out,
                     mask=mask & (offs_i[:, None] > offs_j[None, :]))
        else:
            tl.store(g_ptr + offs_i[:, None] * stride_gi + offs_j[None, :] * stride_gj, out,
                     mask=mask)
            tl.store(g_ptr + offs_j[None, :] * stride_gi + offs_i[:, None] * stride_gj, out,
                     mask=mask)


def run(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    g = torch.empty((N, N), dtype=x.dtype, device=x.device)
    BLOCK, BLOCK_M = 64, 32
    grid = (triton.cdiv(N, BLOCK), triton.cdiv(N, BLOCK))
    _gram_kernel[grid](x, g, M, N, x.stride(0), x.stride(1), g.stride(0), g.stride(1),
                       BLOCK=BLOCK, BLOCK_M=BLOCK_M, num_warps=4, num_stages=3)
    return g
