import torch


def _dequantize(q, scale, rows_per_scale):
    """float64 values of a block-scaled fp8 matrix (exact: an fp8 value times a float32)."""
    s = scale.double().repeat_interleave(rows_per_scale, dim=0)[:q.shape[0]]
    return q.double() * s.repeat_interleave(128, dim=1)[:, :q.shape[1]]


def reference(a, a_scale, b, b_scale, out_dtype_probe):
    A = _dequantize(a, a_scale, 1)
    B = _dequantize(b, b_scale, 128)
    return (A @ B.T).to(out_dtype_probe.dtype)


def baseline(a, a_scale, b, b_scale, out_dtype_probe):
    """What a PyTorch user without fp8 kernels runs: dequantize to float32 and one GEMM."""
    sa = a_scale.repeat_interleave(128, dim=1)[:, :a.shape[1]]
    sb = b_scale.repeat_interleave(128, dim=0)[:b.shape[0]]
    sb = sb.repeat_interleave(128, dim=1)[:, :b.shape[1]]
    return ((a.float() * sa) @ (b.float() * sb).T).to(out_dtype_probe.dtype)
