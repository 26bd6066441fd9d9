import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, NB, BS, H, D = shape["T"], shape["NB"], shape["BS"], shape["H"], shape["D"]
    n_slots = NB * BS
    key = maybe_outliers(normal((T, H, D), dtype, gen), gen, mode)
    value = maybe_outliers(normal((T, H, D), dtype, gen), gen, mode)
    key_cache = normal((NB, BS, H, D), dtype, gen, std=0.5, mean=2.0)
    value_cache = normal((NB, BS, H, D), dtype, gen, std=0.5, mean=-2.0)
    # distinct slots: a random permutation of the cache slots, with the first and the last slot
    # forced to the front, rotated by a random amount so they land on random tokens
    keys = torch.rand((n_slots,), generator=gen, device=gen.device)
    keys[0] = -2.0
    keys[-1] = -1.0
    perm = torch.argsort(keys, stable=True)[:T]
    slots = torch.roll(perm, int(integers((1,), 0, T, gen)[0]))
    pad_share = 0.3 if mode == "outlier" else 0.05
    pad = torch.rand((T,), generator=gen, device=gen.device) < pad_share
    pad = pad & (slots != 0) & (slots != n_slots - 1)
    slot_mapping = torch.where(pad, -1, slots).contiguous()
    return (key, value, key_cache, value_cache, slot_mapping)
