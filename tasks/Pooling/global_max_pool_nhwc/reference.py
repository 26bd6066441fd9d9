def reference(x):
    return x.float().amax(dim=(1, 2)).to(x.dtype)
