import torch
import triton
import triton.language as tl


@triton.jit
def _poly1_kernel(x_ptr, t_ptr, out_ptr, V, epsilon, BLOCK: tl.constexpr):
    # One program per row: an online max / sum of exponentials over blocks of the row.
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * V
    t = tl.load(t_ptr + row)
    m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        # lanes still at -inf (all masked so far) contribute nothing
        s = tl.where(m_new == -float("inf"), 0.0, s * tl.exp(m - m_new) + tl.exp(x - m_new))
        m = m_new
    mx = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - mx)), axis=0)
    lse = mx + tl.log(total)
    keep = t != -100
    xt = tl.load(base + tl.where(keep, t, 0)).to(tl.float32)
    ce = lse - xt
    loss = ce + epsilon * (1.0 - tl.exp(-ce))
    tl.store(out_ptr + row, tl.where(keep, loss, 0.0))


def run(logits: torch.Tensor, target: torch.Tensor, epsilon: float) -> torch.Tensor:
    N, V = logits.shape
    x = logits.contiguous()
    t = target.contiguous()
    out = torch.empty((N,), dtype=torch.float32, device=x.device)
    BLOCK = min(triton.next_power_of_2(V), 4096)
    _poly1_kernel[(N,)](x, t, out, V, epsilon, BLOCK=BLOCK, num_warps=8 if BLOCK >= 2048 else 4)
    return out
