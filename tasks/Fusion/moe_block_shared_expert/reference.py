import torch
import torch.nn.functional as F


def _route(router_logits, top_k, renormalize):
    p = torch.softmax(router_logits.float(), dim=-1)
    ids = torch.sort(router_logits.float(), dim=-1, descending=True, stable=True).indices[:, :top_k]
    w = p.gather(1, ids)
    if renormalize:
        w = w / w.sum(dim=-1, keepdim=True)
    return w, ids


def _swiglu(z, w13, w2, dt):  # float64 in, the hidden rounded to the dtype as vLLM stores it
    f = w13.shape[0] // 2
    gu = z @ w13.double().T
    h = (F.silu(gu[:, :f]) * gu[:, f:]).to(dt).double()
    return h @ w2.double().T


def reference(x, router_logits, w13, w2, shared_w13, shared_w2, shared_gate, top_k,
              renormalize):
    w, ids = _route(router_logits, top_k, renormalize)
    xd = x.double()
    y = torch.sigmoid(xd @ shared_gate.double().T) * _swiglu(xd, shared_w13, shared_w2, x.dtype)
    for e in range(w13.shape[0]):
        tok, slot = (ids == e).nonzero(as_tuple=True)
        if tok.numel():
            out = _swiglu(xd[tok], w13[e], w2[e], x.dtype) * w[tok, slot].double()[:, None]
            y.index_add_(0, tok, out)
    return y.to(x.dtype)


def baseline(x, router_logits, w13, w2, shared_w13, shared_w2, shared_gate, top_k,
             renormalize):
    w, ids = _route(router_logits, top_k, renormalize)
    fs = shared_w13.shape[0] // 2
    gu = F.linear(x, shared_w13)
    y = (torch.sigmoid(F.linear(x, shared_gate))
         * F.linear(F.silu(gu[:, :fs]) * gu[:, fs:], shared_w2)).float()
    f = w13.shape[1] // 2
    for e in range(w13.shape[0]):
        tok, slot = (ids == e).nonzero(as_tuple=True)
        gu = F.linear(x[tok], w13[e])
        out = F.linear(F.silu(gu[:, :f]) * gu[:, f:], w2[e])
        y.index_add_(0, tok, out.float() * w[tok, slot][:, None])
    return y.to(x.dtype)
