import torch
import triton
import triton.language as tl


@triton.jit
def _symv_kernel(a_ptr, x_ptr, y_ptr, out_ptr, N, stride_am, alpha, beta,
                 BLOCK_I: tl.constexpr, BLOCK_J: tl.constexpr):
    # out[i] = alpha * (sum_{j <= i} a[i, j] x[j] + sum_{j > i} a[j, i] x[j]) + beta * y[i]:
    # row i of the symmetric matrix is row i of the lower triangle up to the diagonal, then
    # column i of it below the diagonal. The strict upper triangle is never read.
    i = tl.program_id(0) * BLOCK_I + tl.arange(0, BLOCK_I)
    imask = i < N
    acc = tl.zeros((BLOCK_I,), tl.float32)
    for j0 in range(0, N, BLOCK_J):
        j = j0 + tl.arange(0, BLOCK_J)
        jmask = j < N
        xj = tl.load(x_ptr + j, mask=jmask, other=0.0).to(tl.float32)
        lower = imask[:, None] & jmask[None, :] & (j[None, :] <= i[:, None])
        below = imask[:, None] & jmask[None, :] & (j[None, :] > i[:, None])
        a_ij = tl.load(a_ptr + i[:, None].to(tl.int64) * stride_am + j[None, :], mask=lower,
                       other=0.0).to(tl.float32)
        a_ji = tl.load(a_ptr + j[None, :].to(tl.int64) * stride_am + i[:, None], mask=below,
                       other=0.0).to(tl.float32)
        acc += tl.sum((a_ij + a_ji) * xj[None, :], axis=1)
    y = tl.load(y_ptr + i, mask=imask, other=0.0).to(tl.float32)
    out = alpha * acc + beta * y
    tl.store(out_ptr + i, out.to(out_ptr.dtype.element_ty), mask=imask)


def run(alpha: float, a: torch.Tensor, x: torch.Tensor, beta: float, y: torch.Tensor):
    n = a.shape[0]
    out = torch.empty((n,), device=a.device, dtype=a.dtype)
    BLOCK_I, BLOCK_J = 32, 128
    _symv_kernel[(triton.cdiv(n, BLOCK_I),)](a, x, y, out, n, a.stride(0), alpha, beta,
                                             BLOCK_I=BLOCK_I, BLOCK_J=BLOCK_J)
    return out
