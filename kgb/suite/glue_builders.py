"""Data-movement aten ops rebuilt from host glue alone: allocation, views, fills and copies —
what a kernel file's host code may run (kgb.worker.evidence.GLUE_OPS). The glue-only probe
(kgb.suite.glue_probe) runs a task's reference with these in place of the ops, to find tasks
whose answer PyTorch's glue can build (threat 32).

Each builder takes the op's aten arguments and returns what the op returns, bit for bit
(tests/test_glue_probe.py holds each to its op). Builders call only glue ops and each other,
never the ops they stand for. They run inside a dispatch mode's handler, where `.contiguous()`
and `.reshape()` reach the modes below undecomposed (a copy they make would be unseen): they
copy with an explicit `clone` instead (`_contiguous`, `_reshape`). An op missing here is not
glue: the probe then says the answer cannot be built, and the audit in docs/tasks.md is the
human check."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import Any

import torch

Tensor = torch.Tensor


def _dim(x: Tensor, d: int) -> int:
    return d % x.dim() if x.dim() else 0


def _empty(x: Tensor, shape: Sequence[int]) -> Tensor:
    return torch.empty(tuple(shape), dtype=x.dtype, device=x.device)


def _contiguous(x: Tensor) -> Tensor:
    return x if x.is_contiguous() else x.clone(memory_format=torch.contiguous_format)


def _reshape(x: Tensor, shape: Sequence[int]) -> Tensor:
    try:
        return x.view(tuple(shape))
    except RuntimeError:  # not viewable: reshape copies
        return _contiguous(x).view(tuple(shape))


def _resized(x: Tensor, dim: int, size: int) -> Tensor:
    shape = list(x.shape)
    shape[dim] = size
    return _empty(x, shape)


def roll(x: Tensor, shifts: Sequence[int], dims: Sequence[int] = ()) -> Tensor:
    if not dims:  # roll of the flattened tensor
        flat = _reshape(x, (-1,))
        return roll(flat, shifts, (0,)).view(x.shape)
    out = x
    for shift, d in zip(shifts, dims):
        d = _dim(out, d)
        n = out.shape[d]
        new = _empty(out, out.shape)
        k = shift % n if n else 0
        new.narrow(d, k, n - k).copy_(out.narrow(d, 0, n - k))
        new.narrow(d, 0, k).copy_(out.narrow(d, n - k, k))
        out = new
    return out


def flip(x: Tensor, dims: Sequence[int]) -> Tensor:
    out = x
    for d in dims:
        d = _dim(out, d)
        n = out.shape[d]
        new = _empty(out, out.shape)
        for i in range(n):  # negative strides do not exist: one slice at a time
            new.select(d, i).copy_(out.select(d, n - 1 - i))
        out = new
    return out


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    parts = [t for t in tensors if not (t.dim() == 1 and t.numel() == 0)]  # legacy empties
    if not parts:
        return tensors[0].new_empty((0,))
    if len({t.dtype for t in parts}) != 1:
        raise NotImplementedError("cat of mixed dtypes promotes (a cast)")
    d = _dim(parts[0], dim)
    out = _resized(parts[0], d, sum(t.shape[d] for t in parts))
    at = 0
    for t in parts:
        out.narrow(d, at, t.shape[d]).copy_(t)
        at += t.shape[d]
    return out


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    d = dim % (tensors[0].dim() + 1)
    return cat([t.unsqueeze(d) for t in tensors], d)


def constant_pad_nd(x: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:
    shape = list(x.shape)
    src = x
    for i in range(len(pad) // 2):
        d = x.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        src = src.narrow(d, max(-lo, 0), src.shape[d] - max(-lo, 0) - max(-hi, 0))
        shape[d] += lo + hi
    out = torch.full(tuple(shape), value, dtype=x.dtype, device=x.device)
    dst = out
    for i in range(len(pad) // 2):
        d = x.dim() - 1 - i
        lo = max(pad[2 * i], 0)
        dst = dst.narrow(d, lo, src.shape[d])
    dst.copy_(src)
    return out


def _edge_pad(x: Tensor, padding: Sequence[int], reflect: bool) -> Tensor:
    out = x
    for i in range(len(padding) // 2):
        d = x.dim() - 1 - i
        lo, hi = padding[2 * i], padding[2 * i + 1]
        n = out.shape[d]
        new = _resized(out, d, n + lo + hi)
        new.narrow(d, lo, n).copy_(out)
        for j in range(lo):  # out index j reads input index lo - j (reflect) or 0 (replicate)
            new.select(d, j).copy_(out.select(d, lo - j if reflect else 0))
        for j in range(hi):
            new.select(d, lo + n + j).copy_(out.select(d, n - 2 - j if reflect else n - 1))
        out = new
    return out


def reflection_pad(x: Tensor, padding: Sequence[int]) -> Tensor:
    return _edge_pad(x, padding, reflect=True)


def replication_pad(x: Tensor, padding: Sequence[int]) -> Tensor:
    return _edge_pad(x, padding, reflect=False)


def repeat(x: Tensor, repeats: Sequence[int]) -> Tensor:
    lead = len(repeats) - x.dim()
    shape = (1,) * lead + tuple(x.shape)
    interleaved = [v for s in shape for v in (1, s)]
    expanded = [v for r, s in zip(repeats, shape) for v in (r, s)]
    tiled = _contiguous(_reshape(x, interleaved).expand(expanded))
    return tiled.view([r * s for r, s in zip(repeats, shape)])


def pixel_shuffle(x: Tensor, r: int) -> Tensor:
    *batch, crr, h, w = x.shape
    c = crr // (r * r)
    b = len(batch)
    y = _reshape(x, (*batch, c, r, r, h, w))
    order = list(range(b)) + [b, b + 3, b + 1, b + 4, b + 2]
    return _contiguous(y.permute(order)).view(*batch, c, h * r, w * r)


def pixel_unshuffle(x: Tensor, r: int) -> Tensor:
    *batch, c, hr, wr = x.shape
    h, w = hr // r, wr // r
    b = len(batch)
    y = _reshape(x, (*batch, c, h, r, w, r))
    order = list(range(b)) + [b, b + 2, b + 4, b + 1, b + 3]
    return _contiguous(y.permute(order)).view(*batch, c * r * r, h, w)


def channel_shuffle(x: Tensor, groups: int) -> Tensor:
    n, c, *rest = x.shape
    y = _reshape(x, (n, groups, c // groups, *rest)).transpose(1, 2)
    return _contiguous(y).view(n, c, *rest)


def im2col(x: Tensor, kernel_size: Sequence[int], dilation: Sequence[int],
           padding: Sequence[int], stride: Sequence[int]) -> Tensor:
    batched = x.dim() == 4
    xb = x if batched else x.unsqueeze(0)
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    padded = constant_pad_nd(xb, (pw, pw, ph, ph))  # a fresh contiguous tensor
    n, c, hp, wp = padded.shape
    oh = (hp - (dh * (kh - 1) + 1)) // sh + 1
    ow = (wp - (dw * (kw - 1) + 1)) // sw + 1
    s_n, s_c, s_h, s_w = padded.stride()
    patches = padded.as_strided((n, c, kh, kw, oh, ow),
                                (s_n, s_c, dh * s_h, dw * s_w, sh * s_h, sw * s_w))
    out = _contiguous(patches).view(n, c * kh * kw, oh * ow)
    return out if batched else out.squeeze(0)


def _f32(v: float) -> float:
    """Round to float32 (one rounding of a double result: exact for +, *, / of float32s)."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _nearest_sources(n_in: int, n_out: int, scale: float | None, exact: bool) -> list[int]:
    """PyTorch's nearest source index per output index (aten's nearest_idx, in float32)."""
    if not exact and n_out == n_in:
        return list(range(n_out))
    if not exact and n_out == 2 * n_in:
        return [i >> 1 for i in range(n_out)]
    s = _f32(1.0 / scale) if scale is not None and scale > 0 else _f32(n_in / n_out)
    off = 0.5 if exact else 0.0
    return [min(math.floor(_f32((i + off) * s)), n_in - 1) for i in range(n_out)]


def _upsample_nearest(x: Tensor, output_size: Sequence[int], scales: Sequence[float | None],
                      exact: bool) -> Tensor:
    k = len(scales)
    spatial = x.shape[-k:]
    out = x
    for i in range(k):
        d = x.dim() - k + i
        sources = _nearest_sources(spatial[i], output_size[i], scales[i], exact)
        new = _resized(out, d, output_size[i])
        for j, src in enumerate(sources):
            new.select(d, j).copy_(out.select(d, src))
        out = new
    return out


def _nearest(k: int, exact: bool) -> Callable[..., Tensor]:
    def build(x: Tensor, output_size: Sequence[int], *scales: float | None) -> Tensor:
        padded = (list(scales) + [None] * k)[:k]
        return _upsample_nearest(x, output_size, padded, exact)
    return build


def slice_scatter(x: Tensor, src: Tensor, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Tensor:
    out = x.clone()
    index: list[Any] = [slice(None)] * x.dim()
    index[_dim(x, dim)] = slice(start, end, step)
    out[tuple(index)].copy_(src)
    return out


def select_scatter(x: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    out = x.clone()
    out.select(dim, index).copy_(src)
    return out


def narrow_copy(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    return x.narrow(dim, start, length).clone(memory_format=torch.contiguous_format)


def _triangle(upper: bool) -> Callable[..., Tensor]:
    def build(x: Tensor, diagonal: int = 0) -> Tensor:
        out = torch.zeros_like(x, memory_format=torch.contiguous_format)
        rows, cols = x.shape[-2], x.shape[-1]
        for i in range(rows):  # the kept columns of row i, one slice each
            lo, hi = (max(i + diagonal, 0), cols) if upper else (0, min(i + diagonal + 1, cols))
            if hi > lo:
                out.narrow(-2, i, 1).narrow(-1, lo, hi - lo).copy_(
                    x.narrow(-2, i, 1).narrow(-1, lo, hi - lo))
        return out
    return build


# aten op ("name" or "name.overload") -> its glue-only rebuild. (`upsample_nearest2d.vec` and
# the like decompose to these before a dispatch mode sees them.)
BUILDERS: dict[str, Callable[..., Any]] = {
    "roll": roll, "flip": flip, "cat": cat, "stack": stack, "constant_pad_nd": constant_pad_nd,
    "reflection_pad1d": reflection_pad, "reflection_pad2d": reflection_pad,
    "reflection_pad3d": reflection_pad, "replication_pad1d": replication_pad,
    "replication_pad2d": replication_pad, "replication_pad3d": replication_pad,
    "repeat": repeat, "pixel_shuffle": pixel_shuffle, "pixel_unshuffle": pixel_unshuffle,
    "channel_shuffle": channel_shuffle, "native_channel_shuffle": channel_shuffle,
    "im2col": im2col, "slice_scatter": slice_scatter, "select_scatter": select_scatter,
    "narrow_copy": narrow_copy, "tril": _triangle(upper=False), "triu": _triangle(upper=True),
    **{f"upsample_nearest{k}d": _nearest(k, False) for k in (1, 2, 3)},
    **{f"_upsample_nearest_exact{k}d": _nearest(k, True) for k in (1, 2, 3)},
}


def builder_for(func: Any) -> Callable[..., Any] | None:
    """The glue rebuild of an aten overload, if there is one."""
    name = func._schema.name.split("::")[-1]
    overload = func._schema.overload_name
    return BUILDERS.get(f"{name}.{overload}" if overload else name)
