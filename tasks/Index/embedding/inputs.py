import torch

from kgb.tasks.inputs import integers, maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, S, V, D = shape["B"], shape["S"], shape["V"], shape["D"]
    idx = integers((B, S), 0, V, gen)
    # The first and last rows of the table are always looked up (off-by-one and bounds bugs),
    # at positions drawn from the generator.
    T = B * S
    first = int(integers((1,), 0, T, gen)[0])
    last = (first + 1 + int(integers((1,), 0, max(T - 1, 1), gen)[0])) % T
    flat = idx.view(-1)
    flat[first] = 0
    flat[last] = V - 1  # overrides `first` only when T == 1
    weight = maybe_outliers(normal((V, D), dtype, gen), gen, mode)
    return (idx, weight)
