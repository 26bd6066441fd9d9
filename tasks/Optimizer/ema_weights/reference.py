import torch

DECAY, POWER = 0.9999, 0.75


def decay_at(step: int) -> float:
    return min(DECAY, 1.0 - (1.0 + step) ** -POWER)


def reference(ema, p, step):
    """timm's EMA update with warm-up, in float32 (torch.lerp), out of place."""
    return ema.float().lerp(p.float(), 1.0 - decay_at(step)).to(ema.dtype)

# PyTorch's fused optimizers (fused=True) upcast half parameters and compute in float32 too:
# the float32 update is what a PyTorch user runs.
baseline = reference
