import torch

QMAX = 127.0
EPS = 1e-10


def reference(x, smooth):
    y = x.float() * smooth
    scale = y.abs().amax(dim=-1, keepdim=True).clamp(min=EPS) / QMAX
    q = torch.round(y / scale).clamp(-QMAX, QMAX)
    return (q.to(torch.int8), scale)


baseline = reference  # float32 by contract: smooth is float32, so x * smooth promotes anyway
