import torch

from kgb.tasks.inputs import dtype_of


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    dev = gen.device
    student = torch.randn((N, C), generator=gen, device=dev) * 2.0
    teacher = torch.randn((N, C), generator=gen, device=dev) * 2.0
    # about 10% of the target probabilities are exactly zero
    drop = torch.rand((N, C), generator=gen, device=dev) < 0.1
    teacher = teacher.masked_fill(drop, float("-inf"))
    if mode == "outlier":
        student = student * 50.0
        if N >= 2:
            teacher[N - 1] = float("-inf")  # edge case: a one-hot target row
            teacher[N - 1, C - 1] = 0.0
    inp = torch.log_softmax(student, dim=-1).to(dtype_of(dtype))
    target = torch.softmax(teacher, dim=-1).to(dtype_of(dtype))
    # a loss-scale-like factor ~N / 64, so that gradients are ~p / 64 whatever N
    v = 0.5 + 1.5 * torch.rand((), generator=gen, device=gen.device)
    grad_out = (v * (N / 64.0)).float()
    return (inp, target, grad_out)
