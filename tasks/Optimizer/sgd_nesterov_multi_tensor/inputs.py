import torch

from kgb.tasks.inputs import maybe_outliers, normal, uniform


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    total, count = shape["T"], shape["K"]
    dev = gen.device
    p = normal((total,), dtype, gen)
    g = maybe_outliers(normal((total,), dtype, gen), gen, mode)
    buf = normal((total,), dtype, gen, std=0.5)
    # K tensors of at least one element each, packed one after the other: K - 1 distinct cut
    # points give sizes from 1 element to many blocks, several tensors inside one block
    cuts = torch.randperm(total - 1, generator=gen, device=dev)[:count - 1].add_(1).sort().values
    zero = torch.zeros(1, dtype=torch.int64, device=dev)
    offsets = torch.cat([zero, cuts.to(torch.int64), zero + total])
    # param groups: a learning rate per tensor, weight decay on about half the tensors (the
    # matrices) and none on the others (biases, norm weights)
    lr = uniform((count,), "float32", gen, low=1e-3, high=1e-1)
    decayed = uniform((count,), "float32", gen) < 0.5
    weight_decay = torch.where(decayed, 1e-2, 0.0).to(torch.float32)
    return (p, g, buf, offsets, lr, weight_decay)
