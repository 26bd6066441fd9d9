import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, H, S, D, BS = shape["B"], shape["H"], shape["S"], shape["D"], shape["BS"]
    nb = -(-S // BS)
    q = maybe_outliers(normal((B, H, S, D), dtype, gen, std=2.0), gen, mode, scale=1e1)
    k = normal((B, H, S, D), dtype, gen)
    v = maybe_outliers(normal((B, H, S, D), dtype, gen), gen, mode, scale=1e2)
    layout = (uniform((H, nb, nb), "float32", gen) < 0.4).to(torch.int8)
    layout[:, :, nb - 1] |= (torch.arange(nb, device=gen.device) % 2 == 0).to(torch.int8)
    if mode == "outlier":
        layout[0, 0] = 0  # a query block of head 0 with no key block: its rows are 0
        if nb >= 2:
            layout[0, 1] = 1  # a dense row of blocks
            k[:, 0, 0] = 50.0  # a huge key, visible only where its block is
    return (q, k, v, layout, BS, D ** -0.5)
