import torch
import torch.nn.functional as F


def _route(router_logits):  # the first maximum of each row and its sigmoid score, float32
    lg = router_logits.float()
    ids = torch.sort(lg, dim=-1, descending=True, stable=True).indices[:, 0]
    return ids, torch.sigmoid(lg.gather(1, ids[:, None]))


def _swiglu(z, w13, w2, dt):  # float64 in, the hidden rounded to the dtype as vLLM stores it
    f = w13.shape[0] // 2
    gu = z @ w13.double().T
    h = (F.silu(gu[:, :f]) * gu[:, f:]).to(dt).double()
    return h @ w2.double().T


def reference(x, router_logits, w13, w2, shared_w13, shared_w2):
    ids, score = _route(router_logits)
    xin = (x.float() * score).to(x.dtype).double()  # vLLM scales the input in its dtype
    y = _swiglu(x.double(), shared_w13, shared_w2, x.dtype)
    for e in range(w13.shape[0]):
        tok = (ids == e).nonzero(as_tuple=True)[0]
        if tok.numel():
            y[tok] += _swiglu(xin[tok], w13[e], w2[e], x.dtype)
    return y.to(x.dtype)


def baseline(x, router_logits, w13, w2, shared_w13, shared_w2):
    ids, score = _route(router_logits)
    xin = (x * score.to(x.dtype))
    fs = shared_w13.shape[0] // 2
    gu = F.linear(x, shared_w13)
    y = F.linear(F.silu(gu[:, :fs]) * gu[:, fs:], shared_w2).float()
    f = w13.shape[1] // 2
    for e in range(w13.shape[0]):
        tok = (ids == e).nonzero(as_tuple=True)[0]
        gu = F.linear(xin[tok], w13[e])
        y.index_add_(0, tok, F.linear(F.silu(gu[:, :f]) * gu[:, f:], w2[e]).float())
    return y.to(x.dtype)
