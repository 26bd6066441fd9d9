import torch
import triton
import triton.language as tl


@triton.jit
def _soft_ce_row_kernel(x_ptr, p_ptr, loss_ptr, C, BLOCK: tl.constexpr):
    # One pass: online logsumexp of x, plus sum(p) and sum(p * x); loss = lse * sum(p) - sum(p x).
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * C
    p_row = p_ptr + row * C
    m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    sp = tl.zeros([BLOCK], dtype=tl.float32)
    spx = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, C, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < C
        x = tl.load(x_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        p = tl.load(p_row + cols, mask=mask, other=0.0).to(tl.float32)
        m_new = tl.maximum(m, x)
        seen = m_new > -float("inf")
        m_safe = tl.where(seen, m_new, 0.0)
        s = tl.where(seen, s * tl.exp(m - m_safe) + tl.exp(x - m_safe), 0.0)
        m = m_new
        sp += p
        spx += tl.where(mask, p * x, 0.0)
    row_max = tl.max(m, axis=0)
    lse = row_max + tl.log(tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0),
                                  axis=0))
    tl.store(loss_ptr + row, lse * tl.sum(sp, axis=0) - tl.sum(spx, axis=0))


@triton.jit
def _mean_kernel(loss_ptr, out_ptr, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(loss_ptr + offs, mask=offs < N, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / N)


def run(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    N, C = logits.shape
    x = logits.contiguous()
    p = target.contiguous()
    row_loss = torch.empty((N,), dtype=torch.float32, device=x.device)
    out = torch.empty((), dtype=torch.float32, device=x.device)
    BLOCK = min(triton.next_power_of_2(C), 4096)
    _soft_ce_row_kernel[(N,)](x, p, row_loss, C, BLOCK=BLOCK,
                              num_warps=8 if BLOCK >= 2048 else 4)
    _mean_kernel[(1,)](row_loss, out, N, BLOCK=1024, num_warps=4)
    return out
