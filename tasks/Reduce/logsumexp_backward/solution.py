import torch
import triton
import triton.language as tl


@triton.jit
def _lse_bwd_kernel(x_ptr, g_ptr, dx_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * N
    # pass 1: online maximum and sum of exp over the row
    m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        seen = m_new > -float("inf")
        m_safe = tl.where(seen, m_new, 0.0)
        s = tl.where(seen, s * tl.exp(m - m_safe) + tl.exp(x - m_safe), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
    coef = tl.load(g_ptr + row).to(tl.float32) / total
    # pass 2: grad_out * softmax
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(dx_ptr + row * N + cols, (coef * tl.exp(x - row_max)).to(
            dx_ptr.dtype.element_ty), mask=mask)


def run(x: torch.Tensor, grad_out: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    x, grad_out = x.contiguous(), grad_out.contiguous()
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    BLOCK = min(triton.next_power_of_2(N), 4096)
    _lse_bwd_kernel[(M,)](x, grad_out, dx, N, BLOCK=BLOCK, num_warps=8 if BLOCK >= 2048 else 4)
    return dx
