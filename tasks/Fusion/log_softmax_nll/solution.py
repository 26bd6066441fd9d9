import torch
import triton
import triton.language as tl


@triton.jit
def _log_softmax_nll_kernel(logits_ptr, target_ptr, loss_ptr, lse_ptr, C, stride_row,
                            BLOCK_C: tl.constexpr):
    # one program per row: per-lane online logsumexp over BLOCK_C-wide chunks
    row = tl.program_id(0).to(tl.int64)
    row_ptr = logits_ptr + row * stride_row
    m = tl.full([BLOCK_C], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK_C], dtype=tl.float32)
    for c0 in range(0, C, BLOCK_C):
        cols = c0 + tl.arange(0, BLOCK_C)
        x = tl.load(row_ptr + cols, mask=cols < C, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m - m_new))
        p = tl.where(m_new == -float("inf"), 0.0, tl.exp(x - m_new))
        s = s * alpha + p
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    lse = row_max + tl.log(total)
    tl.store(lse_ptr + row, lse)
    t = tl.load(target_ptr + row)
    keep = t != -100
    x_t = tl.load(row_ptr + tl.where(keep, t, 0)).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(keep, lse - x_t, 0.0))


def run(logits, target):
    N, C = logits.shape
    loss = torch.empty((N,), dtype=torch.float32, device=logits.device)
    lse = torch.empty((N,), dtype=torch.float32, device=logits.device)
    BLOCK_C = min(4096, triton.next_power_of_2(C))
    _log_softmax_nll_kernel[(N,)](logits, target, loss, lse, C, logits.stride(0),
                                  BLOCK_C=BLOCK_C, num_warps=8 if BLOCK_C >= 2048 else 4)
    return loss, lse
