import torch

from kgb.tasks.inputs import dtype_of


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    dev = gen.device
    student = torch.randn((N, C), generator=gen, device=dev) * 2.0
    teacher = torch.randn((N, C), generator=gen, device=dev) * 2.0
    if mode == "outlier":
        # peaked distributions: log-probabilities down to ~-1e3, exp(t) underflows to 0
        student = student * 50.0
        teacher = teacher * 50.0
    inp = torch.log_softmax(student, dim=-1).to(dtype_of(dtype))
    target = torch.log_softmax(teacher, dim=-1).to(dtype_of(dtype))
    # a loss-scale-like factor ~N / 64
    u = 0.5 + 1.5 * torch.rand((), generator=gen, device=dev)
    grad_out = (u * (N / 64.0)).float()
    return (inp, target, grad_out)
