import torch


def reference(positions, x, cos_sin_cache, grad_out):
    D = cos_sin_cache.shape[1]
    T = x.shape[0]
    cs = cos_sin_cache.double()[positions]
    cos, sin = cs[:, None, : D // 2], cs[:, None, D // 2:]
    xd = x.double().reshape(T, -1, D).requires_grad_(True)
    with torch.enable_grad():
        x1, x2 = xd[..., : D // 2], xd[..., D // 2:]
        y = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
        (gx,) = torch.autograd.grad(y, xd, grad_out.double().reshape(T, -1, D))
    return gx.reshape(T, -1).to(x.dtype)


def baseline(positions, x, cos_sin_cache, grad_out):
    # Closed form: the transposed rotation. The float32 cache promotes the products to float32
    # (a half-precision cache fails atol).
    D = cos_sin_cache.shape[1]
    T = x.shape[0]
    cos, sin = cos_sin_cache.index_select(0, positions).unsqueeze(-2).chunk(2, dim=-1)
    g1, g2 = grad_out.reshape(T, -1, D).chunk(2, dim=-1)
    gx = torch.cat([g1 * cos + g2 * sin, g2 * cos - g1 * sin], dim=-1)
    return gx.reshape(T, -1).to(x.dtype)
