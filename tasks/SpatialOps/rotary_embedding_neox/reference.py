import torch


def _rotate(x, cos, sin, D):
    T = x.shape[0]
    xf = x.double().reshape(T, -1, D)
    x1, x2 = xf[..., : D // 2], xf[..., D // 2:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.reshape(T, -1).to(x.dtype)


def reference(positions, query, key, cos_sin_cache):
    D = cos_sin_cache.shape[1]
    cs = cos_sin_cache.double()[positions]
    cos, sin = cs[:, None, : D // 2], cs[:, None, D // 2:]
    return _rotate(query, cos, sin, D), _rotate(key, cos, sin, D)


def _baseline_rotate(x, cos, sin, D):
    T = x.shape[0]
    x1, x2 = x.reshape(T, -1, D).chunk(2, dim=-1)
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.reshape(T, -1).to(x.dtype)


def baseline(positions, query, key, cos_sin_cache):
    # The float32 cache promotes the products to float32 (a half-precision cache fails atol).
    cos, sin = cos_sin_cache.index_select(0, positions).unsqueeze(-2).chunk(2, dim=-1)
    return (_baseline_rotate(query, cos, sin, cos_sin_cache.shape[1]),
            _baseline_rotate(key, cos, sin, cos_sin_cache.shape[1]))
