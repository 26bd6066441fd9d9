import torch

from kgb.tasks.inputs import maybe_outliers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    B, S, DM, F, C = shape["B"], shape["S"], shape["DM"], shape["F"], shape["C"]
    x = maybe_outliers(normal((B, S, DM), dtype, gen), gen, mode, scale=1e1)
    router = normal((B, S), "float32", gen)
    w_gate_up = normal((2 * F, DM), dtype, gen, std=DM ** -0.5)
    w_down = normal((DM, F), dtype, gen, std=F ** -0.5)
    if mode == "outlier":
        router = torch.round(router * 2) / 2  # many ties: the earlier token wins
        router[:, -1] = router.max() + 1  # the last token always routed
    return (x, router, w_gate_up, w_down, C)
