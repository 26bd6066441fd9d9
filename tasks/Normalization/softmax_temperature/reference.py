import torch


def reference(logits, temperature):
    return torch.softmax(logits.float() / temperature, dim=-1)


def baseline(logits, temperature):
    # float32: the output is float32 at rtol 2e-5; dividing in half precision rounds the logits
    return torch.softmax(logits.float() / temperature, dim=-1)
