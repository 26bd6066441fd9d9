import torch

from kgb.tasks.inputs import integers, normal


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    M, B, K = shape["M"], shape["B"], shape["K"]
    seq = normal((M, B), dtype, gen, std=2.0)
    if mode == "outlier":
        seq = torch.round(seq.float() * 2).to(seq.dtype) / 2  # runs of repeated values
    seq = torch.sort(seq, dim=1).values.contiguous()
    values = normal((M, K), dtype, gen, std=2.5)
    # a fifth of the values are exact copies of elements of their own row
    pick = torch.gather(seq, 1, integers((M, K), 0, B, gen))
    copy = torch.rand((M, K), generator=gen, device=gen.device) < 0.2
    values = torch.where(copy, pick, values)
    if mode == "outlier":
        pos = torch.rand((M, K), generator=gen, device=gen.device)
        values = torch.where(pos < 0.02, seq[:, :1], values)
        values = torch.where(pos > 0.98, seq[:, -1:], values)
        values = torch.where((pos > 0.5) & (pos < 0.52), seq[:, :1] - 100, values)
        values = torch.where((pos > 0.6) & (pos < 0.62), seq[:, -1:] + 100, values)
    return (seq, values.contiguous())
