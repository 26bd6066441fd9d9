def reference(x):
    return x.double().mean(dim=(2, 3)).to(x.dtype)


def baseline(x):
    return x.mean(dim=(2, 3))
