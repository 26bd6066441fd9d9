def reference(x):
    return x.double().mean(dim=-1).to(x.dtype)


def baseline(x):
    return x.mean(dim=-1)
