import torch
import triton
import triton.language as tl


@triton.jit
def _lamb_update(p, g, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2, eps,
                 inv_bc1, inv_sqrt_bc2, weight_decay):
    m = beta1 * m + one_minus_beta1 * g
    v = beta2 * v + one_minus_beta2 * (g * g)
    update = (m * inv_bc1) / (tl.sqrt(v) * inv_sqrt_bc2 + eps) + weight_decay * p
    return m, v, update


@triton.jit
def _norms_kernel(p_ptr, g_ptr, m_ptr, v_ptr, partial_ptr, n, beta1, one_minus_beta1, beta2,
                  one_minus_beta2, eps, inv_bc1, inv_sqrt_bc2, weight_decay,
                  BLOCK: tl.constexpr):
    # Pass 1: reads only; per-block sums of p**2 and update**2.
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m, v, update = _lamb_update(p, g, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2,
                                eps, inv_bc1, inv_sqrt_bc2, weight_decay)
    update = tl.where(mask, update, 0.0)
    tl.store(partial_ptr + 2 * pid, tl.sum(p * p, axis=0))
    tl.store(partial_ptr + 2 * pid + 1, tl.sum(update * update, axis=0))


@triton.jit
def _trust_kernel(partial_ptr, trust_ptr, num_blocks, BLOCK: tl.constexpr):
    # Pass 2: one program, a fixed summation order (deterministic).
    acc_w = tl.zeros([BLOCK], dtype=tl.float32)
    acc_u = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, num_blocks, BLOCK):
        idx = start + tl.arange(0, BLOCK)
        ok = idx < num_blocks
        acc_w += tl.load(partial_ptr + 2 * idx, mask=ok, other=0.0)
        acc_u += tl.load(partial_ptr + 2 * idx + 1, mask=ok, other=0.0)
    w_norm = tl.sqrt(tl.sum(acc_w, axis=0))
    u_norm = tl.sqrt(tl.sum(acc_u, axis=0))
    safe_u = tl.where(u_norm > 0, u_norm, 1.0)
    trust = tl.where(w_norm > 0, tl.where(u_norm > 0, w_norm / safe_u, 1.0), 1.0)
    tl.store(trust_ptr, trust)


@triton.jit
def _apply_kernel(p_ptr, g_ptr, m_ptr, v_ptr, trust_ptr, n, lr, beta1, one_minus_beta1, beta2,
                  one_minus_beta2, eps, inv_bc1, inv_sqrt_bc2, weight_decay,
                  BLOCK: tl.constexpr):
    # Pass 3: the same float32 arithmetic as pass 1, then every element written in place
    # (each program reads its own elements before writing them).
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    m, v, update = _lamb_update(p, g, m, v, beta1, one_minus_beta1, beta2, one_minus_beta2,
                                eps, inv_bc1, inv_sqrt_bc2, weight_decay)
    trust = tl.load(trust_ptr)
    p = p - lr * trust * update
    tl.store(p_ptr + offs, p.to(p_ptr.dtype.element_ty), mask=mask)
    tl.store(m_ptr + offs, m.to(m_ptr.dtype.element_ty), mask=mask)
    tl.store(v_ptr + offs, v.to(v_ptr.dtype.element_ty), mask=mask)


def run(p, g, exp_avg, exp_avg_sq, step: int):
    lr, beta1, beta2, eps, weight_decay = 1e-3, 0.9, 0.999, 1e-6, 0.01
    inv_bc1 = 1.0 / (1.0 - beta1 ** step)
    inv_sqrt_bc2 = (1.0 - beta2 ** step) ** -0.5
    n = p.numel()
    BLOCK = 1024
    blocks = triton.cdiv(n, BLOCK)
    partial = torch.empty((2 * blocks,), dtype=torch.float32, device=p.device)
    trust = torch.empty((1,), dtype=torch.float32, device=p.device)
    hyper = (beta1, 1.0 - beta1, beta2, 1.0 - beta2, eps, inv_bc1, inv_sqrt_bc2, weight_decay)
    _norms_kernel[(blocks,)](p, g, exp_avg, exp_avg_sq, partial, n, *hyper, BLOCK=BLOCK,
                             num_warps=4)
    _trust_kernel[(1,)](partial, trust, blocks, BLOCK=64, num_warps=2)
    _apply_kernel[(blocks,)](p, g, exp_avg, exp_avg_sq, trust, n, lr, *hyper, BLOCK=BLOCK,
                             num_warps=4)
