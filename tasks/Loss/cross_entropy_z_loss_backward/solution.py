import torch
import triton
import triton.language as tl


@triton.jit
def _count_valid_kernel(t_ptr, cnt_ptr, N, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        t = tl.load(t_ptr + offs, mask=offs < N, other=-100)
        acc += (t != -100).to(tl.int32)
    tl.store(cnt_ptr, tl.sum(acc, axis=0).to(tl.float32))


@triton.jit
def _ce_z_bwd_kernel(x_ptr, t_ptr, g_ptr, cnt_ptr, dx_ptr, C, z_loss, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * C
    dx_row = dx_ptr + row * C
    t = tl.load(t_ptr + row)
    if t == -100:
        for start in range(0, C, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            tl.store(dx_row + cols, tl.zeros([BLOCK], dtype=tl.float32).to(
                dx_ptr.dtype.element_ty), mask=cols < C)
    else:
        m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
        s = tl.zeros([BLOCK], dtype=tl.float32)
        for start in range(0, C, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            x = tl.load(x_row + cols, mask=cols < C, other=-float("inf")).to(tl.float32)
            m_new = tl.maximum(m, x)
            seen = m_new > -float("inf")
            m_safe = tl.where(seen, m_new, 0.0)
            s = tl.where(seen, s * tl.exp(m - m_safe) + tl.exp(x - m_safe), 0.0)
            m = m_new
        row_max = tl.max(m, axis=0)
        total = tl.sum(tl.where(m > -float("inf"), s * tl.exp(m - row_max), 0.0), axis=0)
        lse = row_max + tl.log(total)
        scale = tl.load(g_ptr) / tl.load(cnt_ptr)
        coef = (1.0 + 2.0 * z_loss * lse) / total
        for start in range(0, C, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < C
            x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
            d = tl.exp(x - row_max) * coef - tl.where(cols == t, 1.0, 0.0)
            tl.store(dx_row + cols, (scale * d).to(dx_ptr.dtype.element_ty), mask=mask)


def run(logits: torch.Tensor, target: torch.Tensor, z_loss: float,
        grad_out: torch.Tensor) -> torch.Tensor:
    N, C = logits.shape
    x, t = logits.contiguous(), target.contiguous()
    dx = torch.empty((N, C), dtype=logits.dtype, device=logits.device)
    cnt = torch.empty((1,), dtype=torch.float32, device=logits.device)
    _count_valid_kernel[(1,)](t, cnt, N, BLOCK=1024, num_warps=4)
    BLOCK = min(triton.next_power_of_2(C), 4096)
    _ce_z_bwd_kernel[(N,)](x, t, grad_out, cnt, dx, C, z_loss, BLOCK=BLOCK,
                           num_warps=8 if BLOCK >= 2048 else 4)
    return dx
