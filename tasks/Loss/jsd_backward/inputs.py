import torch

from kgb.tasks.inputs import dtype_of


def make_inputs(shape: dict, dtype: str, gen: torch.Generator, mode: str):
    N, C = shape["N"], shape["C"]
    dev = gen.device
    student = torch.randn((N, C), generator=gen, device=dev) * 2.0
    teacher = student + torch.randn((N, C), generator=gen, device=dev)
    if mode == "outlier":
        student = student * 50.0  # very peaked predictions: log-probabilities down to ~-1e3
        teacher = teacher * 20.0
    inp = torch.log_softmax(student, dim=-1).to(dtype_of(dtype))
    target = torch.log_softmax(teacher, dim=-1).to(dtype_of(dtype))
    u = torch.rand((1,), generator=gen, device=dev).item()
    beta = round(0.1 + 0.8 * u, 3)
    # a loss-scale-like factor ~N / 64, so that gradients are ~p / 64 whatever N
    v = 0.5 + 1.5 * torch.rand((), generator=gen, device=gen.device)
    grad_out = (v * (N / 64.0)).float()
    return (inp, target, beta, grad_out)
