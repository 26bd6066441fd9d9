def reference(x):
    return x.float().amax(dim=(1, 2)).to(x.dtype)


def baseline(x):
    return x.amax(dim=(1, 2))
