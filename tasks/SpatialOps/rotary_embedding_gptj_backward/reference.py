import torch


def _forward(x, cs, D):
    R = cs.shape[-1]
    cos, sin = cs[:, None, : R // 2], cs[:, None, R // 2:]
    a, b = x[..., 0:R:2], x[..., 1:R:2]
    rot = torch.stack([a * cos - b * sin, b * cos + a * sin], dim=-1).flatten(-2)
    return torch.cat([rot, x[..., R:]], dim=-1)


def reference(positions, x, cos_sin_cache, head_size, grad_out):
    # float64 autograd of the forward, rounded once
    T = x.shape[0]
    cs = cos_sin_cache.double()[positions]
    with torch.enable_grad():
        xd = x.double().reshape(T, -1, head_size).requires_grad_(True)
        (gx,) = torch.autograd.grad(_forward(xd, cs, head_size), xd,
                                    grad_out.double().reshape(T, -1, head_size))
    return gx.reshape(T, -1).to(x.dtype)


def baseline(positions, x, cos_sin_cache, head_size, grad_out):
    # closed form: the transposed rotation, in float32 (the cache's dtype)
    T = x.shape[0]
    R = cos_sin_cache.shape[1]
    cs = cos_sin_cache.index_select(0, positions)
    cos, sin = cs[:, None, : R // 2], cs[:, None, R // 2:]
    g = grad_out.reshape(T, -1, head_size).float()
    ga, gb = g[..., 0:R:2], g[..., 1:R:2]
    rot = torch.stack([ga * cos + gb * sin, gb * cos - ga * sin], dim=-1).flatten(-2)
    return torch.cat([rot, g[..., R:]], dim=-1).reshape(T, -1).to(x.dtype)
