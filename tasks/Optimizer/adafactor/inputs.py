import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    m, n = shape["M"], shape["N"]
    p = normal((m, n), dtype, gen)
    g = maybe_outliers(normal((m, n), dtype, gen), gen, mode)
    # running means of g ** 2 (> 0), float32 as transformers keeps them; well below this
    # step's means (the gradients grew), so that even at step 2000 (1 - beta2t ~ 0.0023) the
    # states move by more than a bfloat16 tolerance: a kernel that skips them is wrong there too
    row = uniform((m,), "float32", gen, low=0.005, high=0.05)
    col = uniform((n,), "float32", gen, low=0.005, high=0.05)
    step = int(torch.randint(1, 2001, (1,), generator=gen, device=gen.device).item())
    return (p, g, row, col, step)
