import torch
import triton
import triton.language as tl


@triton.jit
def _householder_apply_kernel(a_ptr, v_ptr, tau_ptr, out_ptr, M, N,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One program per (matrix b, block of columns): w = v^T a over all M rows first, then
    # out = a - tau v w.
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    cmask = cols < N
    base = b * M * N
    w = tl.zeros([BLOCK_N], dtype=tl.float32)
    for m0 in range(0, M, BLOCK_M):
        rows = m0 + tl.arange(0, BLOCK_M)
        rmask = rows < M
        v = tl.load(v_ptr + b * M + rows, mask=rmask, other=0.0).to(tl.float32)
        a = tl.load(a_ptr + base + rows.to(tl.int64)[:, None] * N + cols[None, :],
                    mask=rmask[:, None] & cmask[None, :], other=0.0).to(tl.float32)
        w += tl.sum(v[:, None] * a, axis=0)
    tw = tl.load(tau_ptr + b).to(tl.float32) * w
    for m0 in range(0, M, BLOCK_M):
        rows = m0 + tl.arange(0, BLOCK_M)
        rmask = rows < M
        m = rmask[:, None] & cmask[None, :]
        offs = base + rows.to(tl.int64)[:, None] * N + cols[None, :]
        v = tl.load(v_ptr + b * M + rows, mask=rmask, other=0.0).to(tl.float32)
        a = tl.load(a_ptr + offs, mask=m, other=0.0).to(tl.float32)
        out = a - v[:, None] * tw[None, :]
        tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=m)


def run(a: torch.Tensor, v: torch.Tensor, tau: torch.Tensor) -> torch.Tensor:
    B, M, N = a.shape
    a = a.contiguous()
    v = v.contiguous()
    tau = tau.contiguous()
    out = torch.empty((B, M, N), dtype=a.dtype, device=a.device)
    BLOCK_M, BLOCK_N = 64, 64
    grid = (B, triton.cdiv(N, BLOCK_N))
    _householder_apply_kernel[grid](a, v, tau, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                    num_warps=4)
    return out
