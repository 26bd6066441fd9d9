import torch


def reference(x, weight, mean, invstd, grad_out):
    # float64 evaluation of native_batch_norm_backward's training formula, rounded once
    n = x.numel() // x.shape[1]
    g = grad_out.double()
    xhat = (x.double() - mean.double()[None, :, None, None]) * invstd.double()[None, :, None, None]
    gb = g.sum(dim=(0, 2, 3))
    gw = (g * xhat).sum(dim=(0, 2, 3))
    scale = (weight.double() * invstd.double())[None, :, None, None]
    gx = scale * (g - gb[None, :, None, None] / n - xhat * gw[None, :, None, None] / n)
    return (gx.to(x.dtype), gw.float(), gb.float())


def baseline(x, weight, mean, invstd, grad_out):
    gx, gw, gb = torch.ops.aten.native_batch_norm_backward(
        grad_out.float(), x.float(), weight, None, None, mean, invstd, True, 1e-5,
        [True, True, True])
    return (gx.to(x.dtype), gw, gb)
