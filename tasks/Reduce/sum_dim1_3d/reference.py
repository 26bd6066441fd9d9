def reference(x):
    return x.double().sum(dim=1).to(x.dtype)


def baseline(x):
    return x.sum(dim=1)
