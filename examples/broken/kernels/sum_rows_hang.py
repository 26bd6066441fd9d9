# Hangs: the reduction loop bound is 2**62 instead of the row length.
import torch
import triton
import triton.language as tl


@triton.jit
def _sum_rows_kernel(x_ptr, out_ptr, n_cols, stride, n_iter, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_iter, BLOCK):
        offs = (start % n_cols) + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def run(x):
    m, n = x.shape
    out = torch.empty((m,), dtype=x.dtype, device=x.device)
    _sum_rows_kernel[(m,)](x, out, n, x.stride(0), 2**62, BLOCK=128)
    return out
