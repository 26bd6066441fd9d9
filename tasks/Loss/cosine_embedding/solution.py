import torch
import triton
import triton.language as tl


@triton.jit
def _cos_row_kernel(a_ptr, b_ptr, y_ptr, loss_ptr, D, margin, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    ab = tl.zeros([BLOCK], dtype=tl.float32)
    aa = tl.zeros([BLOCK], dtype=tl.float32)
    bb = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < D
        a = tl.load(a_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        ab += a * b
        aa += a * a
        bb += b * b
    denom = tl.sqrt((tl.sum(aa, axis=0) + 1e-12) * (tl.sum(bb, axis=0) + 1e-12))
    cos = tl.sum(ab, axis=0) / denom
    y = tl.load(y_ptr + row)
    loss = tl.where(y == 1, 1.0 - cos, tl.maximum(cos - margin, 0.0))
    tl.store(loss_ptr + row, loss)


@triton.jit
def _mean_kernel(loss_ptr, out_ptr, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(loss_ptr + offs, mask=offs < N, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / N)


def run(x1: torch.Tensor, x2: torch.Tensor, y: torch.Tensor, margin: float) -> torch.Tensor:
    N, D = x1.shape
    a = x1.contiguous()
    b = x2.contiguous()
    yy = y.contiguous()
    row_loss = torch.empty((N,), dtype=torch.float32, device=a.device)
    out = torch.empty((), dtype=torch.float32, device=a.device)
    BLOCK = min(triton.next_power_of_2(D), 2048)
    _cos_row_kernel[(N,)](a, b, yy, row_loss, D, margin, BLOCK=BLOCK, num_warps=4)
    _mean_kernel[(1,)](row_loss, out, N, BLOCK=1024, num_warps=4)
    return out
