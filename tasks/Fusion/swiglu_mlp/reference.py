import torch.nn.functional as F


def reference(x, w_gate, w_up, w_down):
    xd = x.double()
    h = (F.silu(xd @ w_gate.double().T) * (xd @ w_up.double().T)).to(x.dtype)
    return (h.double() @ w_down.double().T).to(x.dtype)
