def reference(x):
    return x.permute(0, 2, 3, 1).contiguous()
