import torch
import torch.nn.functional as F


def reference(x, w, gamma, beta, running_mean, running_var):
    # float64 throughout (cuDNN may use TF32 for float32), rounded once.
    z = F.conv2d(x.double(), w.double(), padding=1)
    y = F.batch_norm(z, running_mean.double(), running_var.double(), gamma.double(),
                     beta.double(), training=False, eps=1e-5)
    return torch.relu(y).to(x.dtype)


def baseline(x, w, gamma, beta, running_mean, running_var):
    z = F.conv2d(x, w, padding=1)
    return F.relu(F.batch_norm(z, running_mean, running_var, gamma, beta, training=False,
                               eps=1e-5))
