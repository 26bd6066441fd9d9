def reference(x, w, residual):
    return (residual.double() + x.double() @ w.double().T).to(x.dtype)
