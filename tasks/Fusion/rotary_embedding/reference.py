import torch


def _rotate(x, cos, sin):
    h = x.shape[-1] // 2
    xf = x.float()
    x1, x2 = xf[..., :h], xf[..., h:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)


def reference(positions, q, k, cos_sin_cache):
    h = cos_sin_cache.shape[-1] // 2
    rows = cos_sin_cache[positions].float()  # [T, D]
    cos, sin = rows[:, None, :h], rows[:, None, h:]
    return (_rotate(q, cos, sin), _rotate(k, cos, sin))


def baseline(positions, q, k, cos_sin_cache):
    # float32 cos/sin (x promotes): float16 products cancel in x1 * cos - x2 * sin and fail rtol
    cos, sin = cos_sin_cache[positions].float().unsqueeze(1).chunk(2, dim=-1)

    def rotate(x):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)

    return (rotate(q), rotate(k))
