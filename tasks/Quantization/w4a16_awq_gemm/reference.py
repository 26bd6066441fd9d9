import torch

SHIFTS = (0, 4, 1, 5, 2, 6, 3, 7)


def _unpack(packed):
    """[R, N / 8] int32 (AWQ order) -> [R, N] int64 codes."""
    shifts = torch.tensor(SHIFTS, device=packed.device) * 4
    codes = (packed.to(torch.int64)[:, :, None] >> shifts) & 0xF
    return codes.reshape(packed.shape[0], -1)


def _weight(qweight, qzeros, scales, dtype):
    codes = _unpack(qweight)
    zeros = _unpack(qzeros).repeat_interleave(128, dim=0)
    return (codes - zeros).to(dtype) * scales.to(dtype).repeat_interleave(128, dim=0)


def reference(x, qweight, qzeros, scales):
    return (x.double() @ _weight(qweight, qzeros, scales, torch.float64)).to(x.dtype)


def baseline(x, qweight, qzeros, scales):
    """What a PyTorch user runs: dequantize in x's dtype, one GEMM."""
    return x @ _weight(qweight, qzeros, scales, x.dtype)
