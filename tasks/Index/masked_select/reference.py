import torch


def reference(x, mask):
    sel = torch.masked_select(x, mask)
    out = torch.zeros(x.numel(), dtype=x.dtype, device=x.device)
    out[: sel.numel()] = sel
    count = torch.tensor([sel.numel()], dtype=torch.int64, device=x.device)
    return out, count
