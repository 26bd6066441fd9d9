import torch
import torch.nn.functional as F


def _band(S, window, device):
    i = torch.arange(S, device=device)
    return (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - window)


def reference(q, k, v, sinks, window, scale):
    B, H, S, D = q.shape
    group = H // k.shape[1]
    band = _band(S, window, q.device)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    hc = max(1, (1 << 27) // (S * (S + 1)))  # heads per chunk: float64 scores of ~1 GB at most
    for b in range(B):
        for h0 in range(0, H, hc):
            h1 = min(H, h0 + hc)
            g = torch.arange(h0, h1, device=q.device) // group
            s = (q[b, h0:h1].double() @ k[b, g].double().transpose(-1, -2)) * scale
            s = s.masked_fill(~band, float("-inf"))
            sink = sinks[h0:h1].double().view(-1, 1, 1).expand(-1, S, 1)
            p = torch.softmax(torch.cat([s, sink], dim=-1), dim=-1)[..., :S]
            out[b, h0:h1] = (p @ v[b, g].double()).to(q.dtype)
    return out


def baseline(q, k, v, sinks, window, scale):
    # the sink as an extra key whose value is zero: its score is the sink logit itself
    B, H, S, D = q.shape
    group = H // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    qs = torch.cat([q, torch.zeros((B, H, S, 1), dtype=q.dtype, device=q.device)], dim=-1)
    ks = torch.cat([k, torch.zeros((B, H, S, 1), dtype=q.dtype, device=q.device)], dim=-1)
    sink_k = torch.zeros((B, H, 1, D + 1), dtype=q.dtype, device=q.device)
    sink_k[..., D] = (sinks / scale).to(q.dtype).view(1, H, 1)
    qs[..., D] = 1
    ks = torch.cat([ks, sink_k], dim=2)
    vs = torch.cat([v, torch.zeros((B, H, 1, D), dtype=q.dtype, device=q.device)], dim=2)
    mask = torch.cat([_band(S, window, q.device),
                      torch.ones((S, 1), dtype=torch.bool, device=q.device)], dim=1)
    return F.scaled_dot_product_attention(qs, ks, vs, attn_mask=mask, scale=scale)
