import torch
import triton
import triton.language as tl


@triton.jit
def _triplet_row_kernel(a_ptr, p_ptr, n_ptr, loss_ptr, D, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    dp = tl.zeros([BLOCK], dtype=tl.float32)
    dn = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < D
        a = tl.load(a_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        p = tl.load(p_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        n = tl.load(n_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
        e = tl.where(mask, a - p + 1e-6, 0.0)
        f = tl.where(mask, a - n + 1e-6, 0.0)
        dp += e * e
        dn += f * f
    loss = tl.maximum(tl.sqrt(tl.sum(dp, axis=0)) - tl.sqrt(tl.sum(dn, axis=0)) + 1.0, 0.0)
    tl.store(loss_ptr + row, loss)


@triton.jit
def _mean_kernel(loss_ptr, out_ptr, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(loss_ptr + offs, mask=offs < N, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / N)


def run(anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
    N, D = anchor.shape
    a = anchor.contiguous()
    p = positive.contiguous()
    n = negative.contiguous()
    row_loss = torch.empty((N,), dtype=torch.float32, device=a.device)
    out = torch.empty((), dtype=torch.float32, device=a.device)
    BLOCK = min(triton.next_power_of_2(D), 2048)
    _triplet_row_kernel[(N,)](a, p, n, row_loss, D, BLOCK=BLOCK, num_warps=4)
    _mean_kernel[(1,)](row_loss, out, N, BLOCK=1024, num_warps=4)
    return out
