import torch
import torch.nn.functional as F


def reference(x, residual, weight, alpha):
    xf = x.float()
    normed = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
    out = residual.float() + torch.tensor(alpha, dtype=torch.float32) * normed * (1.0 + weight.float())
    return out.to(x.dtype)


def baseline(x, residual, weight, alpha):
    # float32: the rounded normed term cancels against the residual and fails rtol
    normed = F.rms_norm(x.float(), (x.shape[-1],), 1.0 + weight.float(), eps=1e-6)
    return torch.add(residual, normed, alpha=alpha).to(x.dtype)
