import torch


def reference(x, residual, weight, alpha):
    xf = x.float()
    normed = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
    out = residual.float() + torch.tensor(alpha, dtype=torch.float32) * normed * (1.0 + weight.float())
    return out.to(x.dtype)
