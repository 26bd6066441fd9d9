import torch
import torch.nn.functional as F

QMAX = 127.0
EPS = 1e-10
GROUP = 128


def _group_scales(x):
    """Each group's max |x| in x's dtype (exact), then the float32 scale."""
    M, K = x.shape
    G = (K + GROUP - 1) // GROUP
    padded = F.pad(x.abs(), (0, G * GROUP - K))  # zeros do not change a maximum of |x|
    return padded.reshape(M, G, GROUP).amax(dim=-1).float().clamp(min=EPS) / QMAX


def reference(x):
    scale = _group_scales(x)
    per_element = scale.repeat_interleave(GROUP, dim=1)[:, :x.shape[1]]
    q = torch.round(x.float() / per_element).clamp(-QMAX, QMAX)
    return (q.to(torch.int8), scale)


def baseline(x):
    scale = _group_scales(x)
    per_element = scale.repeat_interleave(GROUP, dim=1)[:, :x.shape[1]]
    return (torch.round(x / per_element).clamp_(-QMAX, QMAX).to(torch.int8), scale)
