import torch
import torch.nn.functional as F

EPS = 1e-5


def reference(x, weight, grad_out, num_groups):
    with torch.enable_grad():
        xd = x.double().requires_grad_(True)
        out = F.group_norm(xd, num_groups, weight.double(), None, EPS)
        (gx,) = torch.autograd.grad(out, (xd,), grad_out.double())
    return gx.to(x.dtype)


def baseline(x, weight, grad_out, num_groups):
    # float32: the half-precision CPU backward fails atol on groups with mean ~64
    # (what autograd runs: the saved statistics of the forward, then the aten backward)
    n, c = x.shape[:2]
    hw = x[0, 0].numel()
    xf, wf = x.float(), weight.float()
    _, mean, rstd = torch.native_group_norm(xf, wf, None, n, c, hw, num_groups, EPS)
    gx, _, _ = torch.ops.aten.native_group_norm_backward(grad_out.float(), xf, mean, rstd, wf, n, c,
                                                         hw, num_groups, [True, False, False])
    return gx.to(x.dtype)
