import torch


def reference(out, grad_out):
    od, gd = out.double(), grad_out.double()
    return (gd - od.exp() * gd.sum(dim=-1, keepdim=True)).to(out.dtype)


def baseline(out, grad_out):
    return torch._log_softmax_backward_data(grad_out, out, -1, out.dtype)
