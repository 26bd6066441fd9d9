import torch
import torch.nn.functional as F


def _rot(u, cos, sin):  # u [T, heads, D] float64; cos, sin [T, D/2]
    h = u.shape[-1] // 2
    a, b = u[..., :h], u[..., h:]
    c, s = cos[:, None, :], sin[:, None, :]
    return torch.cat([a * c - b * s, b * c + a * s], dim=-1)


def _split(z, T, H, HKV, D):
    return (z[:, : H * D].reshape(T, H, D), z[:, H * D:(H + HKV) * D].reshape(T, HKV, D),
            z[:, (H + HKV) * D:].reshape(T, HKV, D))


def reference(x, w_qkv, positions, cos_sin_cache, k_cache, v_cache, slot_mapping, num_heads,
              num_kv_heads):
    T = x.shape[0]
    NB, BS, HKV, D = k_cache.shape
    dt = x.dtype
    z = (x.double() @ w_qkv.double().T).to(dt).double()  # rounded as eager stores it
    q, k, v = _split(z, T, num_heads, HKV, D)
    cs = cos_sin_cache.double()[positions]
    cos, sin = cs[:, : D // 2], cs[:, D // 2:]
    q = _rot(q, cos, sin).to(dt)
    k = _rot(k, cos, sin).to(dt)
    keep = slot_mapping >= 0
    s = slot_mapping[keep]
    k_out = k_cache.clone()
    v_out = v_cache.clone()
    k_out.view(NB * BS, HKV, D)[s] = k[keep]
    v_out.view(NB * BS, HKV, D)[s] = v[keep].to(dt)
    return q, k_out, v_out


def baseline(x, w_qkv, positions, cos_sin_cache, k_cache, v_cache, slot_mapping, num_heads,
             num_kv_heads):
    T = x.shape[0]
    NB, BS, HKV, D = k_cache.shape
    q, k, v = _split(F.linear(x, w_qkv), T, num_heads, HKV, D)
    cs = cos_sin_cache[positions]
    cos, sin = cs[:, None, : D // 2], cs[:, None, D // 2:]

    def rot(u):
        a, b = u[..., : D // 2].float(), u[..., D // 2:].float()
        return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)

    keep = slot_mapping >= 0
    k_out = k_cache.clone()
    v_out = v_cache.clone()
    k_out.view(NB * BS, HKV, D)[slot_mapping[keep]] = rot(k)[keep]
    v_out.view(NB * BS, HKV, D)[slot_mapping[keep]] = v[keep]
    return rot(q), k_out, v_out
