import torch
import torch.nn.functional as F

_ORDER = (0, 4, 1, 5, 2, 6, 3, 7)


def _unpack(packed):  # [R, N / 8] int32 -> [R, N] codes 0..15 (AWQ's interleaved order)
    p = packed.to(torch.int64) & 0xFFFFFFFF
    cols = [(p >> (4 * s)) & 0xF for s in _ORDER]
    return torch.stack(cols, dim=-1).reshape(packed.shape[0], -1)


def _dequant(qweight, qzeros, scales, dtype=torch.float64):
    codes = _unpack(qweight).to(dtype)
    zeros = _unpack(qzeros).to(dtype).repeat_interleave(128, dim=0)
    return (codes - zeros) * scales.to(dtype).repeat_interleave(128, dim=0)


def reference(x, gu_qweight, gu_qzeros, gu_scales, d_qweight, d_qzeros, d_scales):
    w_gu = _dequant(gu_qweight, gu_qzeros, gu_scales)
    f = w_gu.shape[1] // 2
    gu = x.double() @ w_gu
    h = (F.silu(gu[:, :f]) * gu[:, f:]).to(x.dtype)
    return (h.double() @ _dequant(d_qweight, d_qzeros, d_scales)).to(x.dtype)


def baseline(x, gu_qweight, gu_qzeros, gu_scales, d_qweight, d_qzeros, d_scales):
    # dequantize to x's dtype, then two dense GEMMs (what PyTorch without int4 kernels runs)
    w_gu = _dequant(gu_qweight, gu_qzeros, gu_scales, torch.float32).to(x.dtype)
    w_d = _dequant(d_qweight, d_qzeros, d_scales, torch.float32).to(x.dtype)
    f = w_gu.shape[1] // 2
    gu = x @ w_gu
    return (F.silu(gu[:, :f]) * gu[:, f:]) @ w_d
