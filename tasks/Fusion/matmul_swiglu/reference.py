import torch.nn.functional as F


def reference(x, w):
    f = w.shape[0] // 2
    h = x.double() @ w.double().T
    return (F.silu(h[:, :f]) * h[:, f:]).to(x.dtype)


def baseline(x, w):
    g, u = F.linear(x, w).chunk(2, dim=-1)
    # epilogue in float32: silu(g) * u rounded twice in bfloat16 fails atol
    return (F.silu(g.float()) * u.float()).to(x.dtype)
