import torch
import torch.nn.functional as F


def reference(x, OL):
    return F.interpolate(x.double(), size=OL, mode="linear", align_corners=False).to(x.dtype)


def baseline(x, OL):
    # Not F.interpolate: its float32 source coordinate fails the float32 tolerance (see
    # task.toml). Exact integer indices, float32 weights (the products promote to float32).
    L = x.shape[-1]
    i = torch.arange(OL, device=x.device)
    num = ((2 * i + 1) * L - OL).clamp_min(0)
    l0 = num // (2 * OL)
    a = (num - l0 * (2 * OL)) / (2 * OL)
    l1 = (l0 + 1).clamp_max(L - 1)
    return (x.index_select(-1, l0) * (1 - a) + x.index_select(-1, l1) * a).to(x.dtype)
