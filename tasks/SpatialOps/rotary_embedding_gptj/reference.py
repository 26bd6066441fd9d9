import torch


def _rotate(x, cos, sin, D, R):
    T = x.shape[0]
    xf = x.double().reshape(T, -1, D)
    rot = xf[..., :R].reshape(T, xf.shape[1], R // 2, 2)
    a, b = rot[..., 0], rot[..., 1]
    out_rot = torch.stack([a * cos - b * sin, b * cos + a * sin], dim=-1).reshape(T, -1, R)
    out = torch.cat([out_rot, xf[..., R:]], dim=-1)
    return out.reshape(T, -1).to(x.dtype)


def reference(positions, query, key, cos_sin_cache, head_size):
    R = cos_sin_cache.shape[1]
    cs = cos_sin_cache.double()[positions]
    cos, sin = cs[:, None, : R // 2], cs[:, None, R // 2:]
    return (_rotate(query, cos, sin, head_size, R), _rotate(key, cos, sin, head_size, R))


def _baseline_rotate(x, cos, sin, D, R):
    T = x.shape[0]
    xv = x.reshape(T, -1, D)
    a, b = xv[..., :R:2], xv[..., 1:R:2]
    rot = torch.stack([a * cos - b * sin, b * cos + a * sin], dim=-1).flatten(-2)
    return torch.cat([rot.to(x.dtype), xv[..., R:]], dim=-1).reshape(T, -1)


def baseline(positions, query, key, cos_sin_cache, head_size):
    # The float32 cache promotes the products to float32 (a half-precision cache fails atol).
    R = cos_sin_cache.shape[1]
    cos, sin = cos_sin_cache.index_select(0, positions).unsqueeze(-2).chunk(2, dim=-1)
    return (_baseline_rotate(query, cos, sin, head_size, R),
            _baseline_rotate(key, cos, sin, head_size, R))
