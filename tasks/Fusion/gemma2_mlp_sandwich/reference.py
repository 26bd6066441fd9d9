import torch
import torch.nn.functional as F


def _gemma_rms(z, w):  # as vLLM's GemmaRMSNorm: float32, (1 + w) in float32, rounded once
    zf = z.float()
    r = torch.rsqrt(zf.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
    return (zf * r * (1.0 + w.float())).to(z.dtype)


def reference(x, pre_norm_w, w_gate, w_up, w_down, post_norm_w):
    dt = x.dtype
    hn = _gemma_rms(x, pre_norm_w).double()
    hidden = (F.gelu(hn @ w_gate.double().T, approximate="tanh") * (hn @ w_up.double().T)).to(dt)
    m = (hidden.double() @ w_down.double().T).to(dt)
    return (x.double() + _gemma_rms(m, post_norm_w).double()).to(dt)


def baseline(x, pre_norm_w, w_gate, w_up, w_down, post_norm_w):
    hn = _gemma_rms(x, pre_norm_w)
    m = F.linear(F.gelu(F.linear(hn, w_gate), approximate="tanh") * F.linear(hn, w_up), w_down)
    return x + _gemma_rms(m, post_norm_w)
