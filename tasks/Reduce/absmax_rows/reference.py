def reference(x):
    return x.abs().amax(dim=-1).float()


def baseline(x):
    return x.abs().amax(dim=-1).float()
