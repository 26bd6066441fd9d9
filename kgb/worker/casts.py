"""Casts in host glue (issue 26 residual). Glue may move values, never change them: a PyTorch
op that writes one dtype's values into another (`.to(dtype)`, `out.copy_(x)` across dtypes,
`out[...] = x`, `fill_` from a tensor) is glue only when the destination holds every value of
the source exactly (bf16 → fp32, int8 → int32, fp8 → fp16); a cast that can round, saturate or
wrap (fp32 → bf16, fp32 → e4m3, fp32 → int8) is compute on every task — on a quantization or
rounding task it is the answer (a Triton kernel that stores float32 and `q.copy_(y)` that
rounds it to e4m3 passed `quantization.fp8_e4m3_per_token`)."""

from __future__ import annotations

import functools
import math
from typing import Any

# op name → (index of the source tensor, index of the destination tensor) among its arguments
_WRITES = {"copy_": (1, 0), "_copy_from": (0, 1), "_copy_from_and_resize": (0, 1),
           "fill_": (1, 0), "fill": (1, 0)}


def cast_note(name: str, args: tuple, kwargs: dict) -> str | None:
    """`op(src->dst)` when the op writes values into a dtype that cannot hold them all, else
    None (no dtype change, a widening one, or not a data-writing op)."""
    src = dst = None
    if name in ("_to_copy", "to"):
        src = getattr(args[0], "dtype", None) if args else None
        dst = kwargs.get("dtype")
        if dst is None:  # to.dtype takes it positionally
            dst = next((a for a in args[1:] if _is_dtype(a)), None)
    elif name in _WRITES:
        s, d = _WRITES[name]
        if len(args) > max(s, d):
            src, dst = getattr(args[s], "dtype", None), getattr(args[d], "dtype", None)
    if src is None or dst is None or src == dst or exact(src, dst):
        return None
    return f"{name}({_name(src)}->{_name(dst)})"


def _is_dtype(value: Any) -> bool:
    import torch

    return isinstance(value, torch.dtype)


def _name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


@functools.cache
def exact(src: Any, dst: Any) -> bool:
    """Whether every value of dtype `src` is a value of dtype `dst` (NaN and infinities
    included where `src` has them). Unknown dtypes (packed fp4, quantized) are not."""
    import torch

    if src == dst or src == torch.bool:
        return True
    try:
        if dst == torch.bool or (src.is_complex and not dst.is_complex):
            return False
        if src.is_floating_point or src.is_complex:
            if not (dst.is_floating_point or dst.is_complex):
                return False
            s, d = torch.finfo(src), torch.finfo(dst)
            has_inf = src not in (torch.float8_e4m3fn, torch.float8_e4m3fnuz, torch.float8_e8m0fnu)
            no_inf = dst in (torch.float8_e4m3fn, torch.float8_e4m3fnuz, torch.float8_e8m0fnu)
            return d.eps <= s.eps and d.max >= s.max and \
                d.smallest_normal * d.eps <= s.smallest_normal * s.eps and \
                not (has_inf and no_inf) and (d.min < 0 or s.min >= 0)
        si = torch.iinfo(src)
        if dst.is_floating_point or dst.is_complex:
            d = torch.finfo(dst)
            significand = 2.0 ** (round(-math.log2(d.eps)) + 1)
            return max(-si.min, si.max) <= significand and d.max >= si.max
        di = torch.iinfo(dst)
        return di.min <= si.min and di.max >= si.max
    except (TypeError, RuntimeError, ValueError):
        return False

