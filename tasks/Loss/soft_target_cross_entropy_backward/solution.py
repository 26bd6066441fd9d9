import torch
import triton
import triton.language as tl


@triton.jit
def _soft_ce_bwd_kernel(x_ptr, t_ptr, g_ptr, dx_ptr, N, C, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * C
    t_row = t_ptr + row * C
    # pass 1: online max / sum of exp, and the target mass
    m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    ts = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, C, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < C
        x = tl.load(x_row + cols, mask=mask, other=-float("inf")).to(tl.float32)
        ts += tl.load(t_row + cols, mask=mask, other=0.0).to(tl.float32)
        m_new = tl.maximum(m, x)
        seen = m_new > -float("inf")
        m_safe = tl.where(seen, m_new, 0.0)
        s = tl.where(seen, s * tl.exp(m - m_safe) + tl.exp(x - m_safe), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
    mass = tl.sum(ts, axis=0)
    scale = tl.load(g_ptr) / N
    coef = mass / total
    # pass 2: the gradient
    for start in range(0, C, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < C
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        t = tl.load(t_row + cols, mask=mask, other=0.0).to(tl.float32)
        d = scale * (tl.exp(x - row_max) * coef - t)
        tl.store(dx_ptr + row * C + cols, d.to(dx_ptr.dtype.element_ty), mask=mask)


def run(logits: torch.Tensor, target: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    N, C = logits.shape
    x, t = logits.contiguous(), target.contiguous()
    dx = torch.empty((N, C), dtype=logits.dtype, device=logits.device)
    BLOCK = min(triton.next_power_of_2(C), 4096)
    _soft_ce_bwd_kernel[(N,)](x, t, grad_out, dx, N, C, BLOCK=BLOCK,
                              num_warps=8 if BLOCK >= 2048 else 4)
    return dx
