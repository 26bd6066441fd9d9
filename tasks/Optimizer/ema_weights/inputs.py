import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    dims = (shape["M"], shape["N"])
    ema = normal(dims, dtype, gen)
    # the weights moved away from their average (a visible update at every decay)
    p = maybe_outliers(normal(dims, dtype, gen, std=2.0), gen, mode)
    step = int(torch.randint(0, 1000000, (1,), generator=gen, device=gen.device).item())
    if dtype != "float32":
        # In half precision an average at the 0.9999 cap does not move (1e-4 of |p - ema| is
        # below its rounding and its tolerance): the unchanged ema would be the right answer,
        # and an in-place kernel that writes nothing could not be told from one that does (the
        # ghost call, the passthrough probe). Half cases stay in the warm-up, 1 - decay >= 0.01.
        step = step % 464
    elif int(torch.randint(0, 2, (1,), generator=gen, device=gen.device).item()):
        step = step % 2000  # float32: half the cases in warm-up, half capped
    return (ema, p, step)
