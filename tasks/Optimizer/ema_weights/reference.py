DECAY, POWER = 0.9999, 0.75


def decay_at(step: int) -> float:
    return min(DECAY, 1.0 - (1.0 + step) ** -POWER)


def reference(ema, p, step):
    """timm's EMA update with warm-up, in float32 (torch.lerp), written IN PLACE into ema (kgb
    calls it on clones and reads it back: kgb.judge.inplace)."""
    ema.copy_(ema.float().lerp(p.float(), 1.0 - decay_at(step)))


# The float32 update is the task's contract (timm lerps in the weights' dtype, which misses it
# for half weights); the baseline runs it in place like the kernel.
baseline = reference
