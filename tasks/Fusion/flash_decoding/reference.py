import torch


def reference(q, k, v, seq_lens, scale):
    B, H, D = q.shape
    group = H // k.shape[1]
    out = torch.empty((B, H, D), dtype=q.dtype, device=q.device)
    for b in range(B):
        n = int(seq_lens[b])
        kb = k[b, :, :n].double().repeat_interleave(group, dim=0)  # [H, n, D]
        vb = v[b, :, :n].double().repeat_interleave(group, dim=0)
        s = torch.einsum("hd,htd->ht", q[b].double(), kb) * scale
        out[b] = torch.einsum("ht,htd->hd", torch.softmax(s, dim=-1), vb).to(q.dtype)
    return out
