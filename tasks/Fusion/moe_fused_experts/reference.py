import torch
import torch.nn.functional as F


def reference(x, w13, w2, topk_weights, topk_ids):
    T, DM = x.shape
    Fh = w13.shape[1] // 2
    y = torch.zeros((T, DM), dtype=torch.float64, device=x.device)
    for e in range(w13.shape[0]):
        tok, slot = (topk_ids == e).nonzero(as_tuple=True)
        if tok.numel() == 0:
            continue
        a = x[tok].double()
        gu = a @ w13[e].double().T
        h = (F.silu(gu[:, :Fh]) * gu[:, Fh:]).to(x.dtype).double()  # vLLM's intermediate
        out = (h @ w2[e].double().T) * topk_weights[tok, slot].double()[:, None]
        y.index_add_(0, tok, out)
    return y.to(x.dtype)


def baseline(x, w13, w2, topk_weights, topk_ids):
    Fh = w13.shape[1] // 2
    y = torch.zeros(x.shape, dtype=torch.float32, device=x.device)
    for e in range(w13.shape[0]):
        tok, slot = (topk_ids == e).nonzero(as_tuple=True)
        gu = F.linear(x[tok], w13[e])
        out = F.linear(F.silu(gu[:, :Fh]) * gu[:, Fh:], w2[e])
        y.index_add_(0, tok, out.float() * topk_weights[tok, slot][:, None])
    return y.to(x.dtype)
