import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_temp_kernel(x_ptr, out_ptr, V, inv_t, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * V
    o_row = out_ptr + row * V
    # Pass 1: online max / rescaled sum per lane.
    m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        z = tl.load(x_row + cols, mask=cols < V, other=-float("inf")).to(tl.float32) * inv_t
        m_new = tl.maximum(m, z)
        seen = m_new > -float("inf")
        s = tl.where(seen, s * tl.exp(m - m_new) + tl.exp(z - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
    inv_total = 1.0 / total
    # Pass 2: write the probabilities.
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < V
        z = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32) * inv_t
        tl.store(o_row + cols, tl.exp(z - row_max) * inv_total, mask=mask)


def run(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    M, V = logits.shape
    logits = logits.contiguous()
    out = torch.empty((M, V), dtype=torch.float32, device=logits.device)
    BLOCK = min(triton.next_power_of_2(V), 4096)
    _softmax_temp_kernel[(M,)](logits, out, V, 1.0 / temperature, BLOCK=BLOCK,
                               num_warps=8 if BLOCK >= 2048 else 4)
    return out
