import torch
import triton
import triton.language as tl


@triton.jit
def _softcap(x, cap):
    # cap * tanh(x / cap) in float32; tanh(a) = sign(a) (1 - e) / (1 + e), e = exp(-2 |a|)
    a = x / cap
    e = tl.exp(-2.0 * tl.abs(a))
    t = (1.0 - e) / (1.0 + e)
    return cap * tl.where(a < 0, -t, t)


@triton.jit
def _row_loss_kernel(z_ptr, t_ptr, loss_ptr, C, cap, BLOCK: tl.constexpr):
    # one row: online logsumexp of the capped logits, minus the capped target logit;
    # an ignored row (target -100) gives 0 and counts 0
    row = tl.program_id(0)
    base = row.to(tl.int64) * C
    target = tl.load(t_ptr + row)
    m = tl.full([BLOCK], -float("inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)
        x = tl.load(z_ptr + base + offs, mask=offs < C, other=0.0).to(tl.float32)
        z = tl.where(offs < C, _softcap(x, cap), -float("inf"))
        m_new = tl.maximum(m, z)
        m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)  # a lane with no logit yet
        s = s * tl.exp(m - m_safe) + tl.exp(z - m_safe)
        m = m_new
    m_row = tl.max(m, axis=0)
    lse = m_row + tl.log(tl.sum(s * tl.exp(m - m_row), axis=0))
    valid = target != -100
    zt = _softcap(tl.load(z_ptr + base + tl.where(valid, target, 0)).to(tl.float32), cap)
    tl.store(loss_ptr + row, tl.where(valid, lse - zt, 0.0))


@triton.jit
def _mean_kernel(loss_ptr, t_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # one program, a fixed order: deterministic
    total = tl.zeros([BLOCK], dtype=tl.float32)
    count = tl.zeros([BLOCK], dtype=tl.float32)
    for r0 in range(0, N, BLOCK):
        offs = r0 + tl.arange(0, BLOCK)
        total += tl.load(loss_ptr + offs, mask=offs < N, other=0.0)
        t = tl.load(t_ptr + offs, mask=offs < N, other=-100)
        count += tl.where(t != -100, 1.0, 0.0)
    tl.store(out_ptr, tl.sum(total, axis=0) / tl.sum(count, axis=0))


def run(logits, target, softcap):
    N, C = logits.shape
    losses = torch.empty((N,), dtype=torch.float32, device=logits.device)
    out = torch.empty((), dtype=torch.float32, device=logits.device)
    _row_loss_kernel[(N,)](logits, target, losses, C, softcap,
                           BLOCK=min(4096, triton.next_power_of_2(C)))
    _mean_kernel[(1,)](losses, target, out, N, BLOCK=1024)
    return out
