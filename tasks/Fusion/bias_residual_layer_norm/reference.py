import torch.nn.functional as F


def reference(x, bias, residual, weight, beta):
    h = x.float() + bias.float() + residual.float()
    y = F.layer_norm(h, (h.shape[-1],), weight.float(), beta.float(), eps=1e-12)
    return y.to(x.dtype)


def baseline(x, bias, residual, weight, beta):
    # float32: h rounded twice to float16/bfloat16 fails rtol where the normalized value cancels
    h = x.float() + bias + residual
    return F.layer_norm(h, (h.shape[-1],), weight.float(), beta.float(), eps=1e-12).to(x.dtype)
