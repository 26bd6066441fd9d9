import torch


def _unpack_rows(packed):
    """[R / 8, C] int32 -> [R, C] int64 codes (row 8 r + i from nibble i)."""
    shifts = torch.arange(8, device=packed.device) * 4
    codes = (packed.to(torch.int64)[:, None, :] >> shifts[None, :, None]) & 0xF
    return codes.reshape(-1, packed.shape[1])


def _weight(qweight, qzeros, scales, dtype):
    codes = _unpack_rows(qweight)
    zeros = _unpack_rows(qzeros.T.contiguous()).T.repeat_interleave(128, dim=0)
    return (codes - zeros).to(dtype) * scales.to(dtype).repeat_interleave(128, dim=0)


def reference(x, qweight, qzeros, scales):
    return (x.double() @ _weight(qweight, qzeros, scales, torch.float64)).to(x.dtype)


def baseline(x, qweight, qzeros, scales):
    """What a PyTorch user runs: dequantize in x's dtype, one GEMM."""
    return x @ _weight(qweight, qzeros, scales, x.dtype)
