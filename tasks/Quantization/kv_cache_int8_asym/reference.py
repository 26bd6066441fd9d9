import torch


def _round_half_even(v):
    return torch.round(v)


def reference(kv):
    kf = kv.float()
    lo = kf.amin(dim=-1, keepdim=True)
    hi = kf.amax(dim=-1, keepdim=True)
    # a tensor divisor: PyTorch on CUDA divides by a Python scalar as a product with its float32
    # reciprocal ((hi - lo) * float32(1/255), BinaryDivTrueKernel.cu), the CPU truly: this
    # division is IEEE on both devices
    scale = (hi - lo) / torch.full_like(hi, 255.0)
    safe = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = _round_half_even((kf - lo) / safe).clamp(0, 255)
    q = torch.where(scale > 0, q, torch.zeros_like(q))
    return (q.to(torch.uint8), scale.squeeze(-1), lo.squeeze(-1))


baseline = reference  # what a PyTorch user writes: the same float32 steps


def quotient(kv):
    # the value q rounds, exactly (float64): where it is a .5 tie, either neighbour is an honest
    # code (kgb/judge/ties.py): with bfloat16 inputs mx - mn is often 255 * 2**p, and then
    # (x - mn) / scale is exactly k + 1/2 for several codes of the row, which the last bit of
    # the scale (mx - mn) / 255 against (mx - mn) * float32(1/255) decides; scale and mn are
    # not rounded codes
    kd = kv.double()
    lo, hi = kd.amin(dim=-1, keepdim=True), kd.amax(dim=-1, keepdim=True)
    return (torch.where(hi > lo, (kd - lo) * 255.0 / (hi - lo), torch.zeros_like(kd)), None,
            None)
