import torch

LR, EPS1, CLIP_THRESHOLD, DECAY_RATE = 1e-3, 1e-30, 1.0, -0.8


def _rms(t):
    return torch.linalg.vector_norm(t) / (t.numel() ** 0.5)


def reference(p, g, exp_avg_sq_row, exp_avg_sq_col, step):
    """transformers' Adafactor step for a factored 2-D parameter (fixed lr, no first moment,
    no weight decay), in float32, written IN PLACE into p and the two states (kgb calls it on
    clones and reads them back: kgb.judge.inplace)."""
    grad, pf = g.float(), p.float()
    beta2t = 1.0 - step ** DECAY_RATE
    sq = grad ** 2 + EPS1
    row = exp_avg_sq_row.float().mul(beta2t).add_(sq.mean(dim=-1), alpha=1.0 - beta2t)
    col = exp_avg_sq_col.float().mul(beta2t).add_(sq.mean(dim=-2), alpha=1.0 - beta2t)
    r_factor = (row / row.mean(dim=-1, keepdim=True)).rsqrt_().unsqueeze(-1)
    c_factor = col.unsqueeze(-2).rsqrt()
    update = r_factor * c_factor * grad
    update.div_((_rms(update) / CLIP_THRESHOLD).clamp_(min=1.0))
    p.copy_(pf - LR * update)
    exp_avg_sq_row.copy_(row)
    exp_avg_sq_col.copy_(col)


# transformers upcasts half parameters and gradients and updates in float32 too: the
# reference is what a PyTorch user runs, in place like the kernel.
baseline = reference
