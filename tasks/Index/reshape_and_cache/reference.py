import torch


def reference(key, value, key_cache, value_cache, slot_mapping):
    NB, BS, H, D = key_cache.shape
    new_k = key_cache.clone().reshape(NB * BS, H, D)
    new_v = value_cache.clone().reshape(NB * BS, H, D)
    keep = slot_mapping >= 0
    slots = slot_mapping[keep]
    new_k[slots] = key[keep]
    new_v[slots] = value[keep]
    return new_k.reshape(NB, BS, H, D), new_v.reshape(NB, BS, H, D)
