import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    T, H, D, NB = shape["T"], shape["H"], shape["D"], shape["NB"]
    key = maybe_outliers(normal((T, H, D), dtype, gen), gen, mode)
    value = maybe_outliers(normal((T, H, D), dtype, gen), gen, mode)
    # old cache contents: earlier tokens' fp8 values
    k_cache = normal((NB, 16, H, D), "float32", gen, std=50.0).to(torch.float8_e4m3fn)
    v_cache = normal((NB, 16, H, D), "float32", gen, std=50.0).to(torch.float8_e4m3fn)
    slots = torch.randperm(NB * 16, generator=gen, device=gen.device)[:T]
    padding = uniform((T,), "float32", gen) < 0.1  # edge case: tokens that are not written
    slot_mapping = torch.where(padding, -1, slots).to(torch.int64)
    k_scale = uniform((1,), "float32", gen, low=0.005, high=0.02)
    v_scale = uniform((1,), "float32", gen, low=0.005, high=0.02)
    return (key, value, k_cache, v_cache, slot_mapping, k_scale, v_scale)
