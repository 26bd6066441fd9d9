import torch
import triton
import triton.language as tl


@triton.jit
def _ce_token_kernel(x_ptr, t_ptr, out_ptr, V, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    t = tl.load(t_ptr + row)
    if t == -100:
        tl.store(out_ptr + row, 0.0)
    else:
        x_row = x_ptr + row * V
        m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
        s = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, V, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(x_row + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
            m_new = tl.maximum(m, x)
            seen = m_new > -float("inf")
            m_safe = tl.where(seen, m_new, 0.0)
            s = tl.where(seen, s * tl.exp(m - m_safe) + tl.exp(x - m_safe), 0.0)
            m = m_new
        row_max = tl.max(m, axis=0)
        total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
        x_t = tl.load(x_row + t).to(tl.float32)
        tl.store(out_ptr + row, row_max + tl.log(total) - x_t)


def run(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    N, V = logits.shape
    x = logits.contiguous()
    t = target.contiguous()
    out = torch.empty((N,), dtype=torch.float32, device=x.device)
    BLOCK = min(triton.next_power_of_2(V), 4096)
    _ce_token_kernel[(N,)](x, t, out, V, BLOCK=BLOCK, num_warps=8 if BLOCK >= 2048 else 4)
    return out
