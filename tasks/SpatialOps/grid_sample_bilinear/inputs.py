import torch

from kgb.tasks.inputs import normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C, H, W, HO, WO = (shape[k] for k in ("N", "C", "H", "W", "HO", "WO"))
    # No amplified outliers in x: an ulp of the float32 source coordinate times a 1e3 step would
    # exceed any meaningful float32 tolerance. The outlier mode stresses the grid instead.
    x = normal((N, C, H, W), dtype, gen)
    grid = uniform((N, HO, WO, 2), dtype, gen, low=-1.1, high=1.1)
    if mode == "outlier":
        # points exactly on pixel centres, on the border and far outside
        pos = torch.rand((N, HO, WO, 1), generator=gen, device=gen.device)
        grid = torch.where(pos < 0.1, torch.full_like(grid, -1.0), grid)
        grid = torch.where(pos > 0.9, torch.full_like(grid, 1.0), grid)
        grid = torch.where((pos > 0.5) & (pos < 0.55), torch.full_like(grid, 3.0), grid)
        grid = torch.where((pos > 0.6) & (pos < 0.65), torch.zeros_like(grid), grid)
    return (x, grid.contiguous())
