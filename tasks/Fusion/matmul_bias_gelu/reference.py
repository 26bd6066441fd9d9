import torch
import torch.nn.functional as F


def reference(a, b, bias):
    h = (a.double() @ b.double() + bias.double()).float()
    return F.gelu(h, approximate="none").to(a.dtype)


def baseline(a, b, bias):
    return F.gelu(torch.addmm(bias, a, b), approximate="none")
