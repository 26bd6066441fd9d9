"""libdevice in Triton's CPU interpreter: compiled Triton calls NVIDIA's libdevice for
`tl.extra.libdevice.*` (tanh, erf, rint, pow ...); the interpreter implements none of them, so
an honest kernel that uses one could not be judged on the CPU. Each symbol is computed here
with the PyTorch function of the same meaning, in the argument's precision; a symbol with no
faithful counterpart raises `InterpreterLimitation` naming it, so the case is reported as not
checkable on the CPU for that reason and no other (never incorrect, never passed)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch


class InterpreterLimitation(RuntimeError):
    """Something compiled Triton supports and the CPU interpreter cannot do faithfully: the
    case is `not_checkable` on the CPU, with this message as the reason."""


def _round_half_away(x: torch.Tensor) -> torch.Tensor:
    return torch.sign(x) * torch.floor(torch.abs(x) + 0.5)


def _ieee_remainder(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x - torch.round(x / y) * y


def _cbrt(x: torch.Tensor) -> torch.Tensor:
    return torch.sign(x) * torch.abs(x).pow(1.0 / 3.0)


def _normcdf(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * torch.erfc(-x / math.sqrt(2.0))


def _as_int(fn: Callable) -> Callable:
    return lambda *a: fn(*a).to(torch.int32)


_UNARY: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "tanh": torch.tanh, "sinh": torch.sinh, "cosh": torch.cosh, "tan": torch.tan,
    "sin": torch.sin, "cos": torch.cos, "asin": torch.asin, "acos": torch.acos,
    "atan": torch.atan, "asinh": torch.asinh, "acosh": torch.acosh, "atanh": torch.atanh,
    "exp": torch.exp, "exp2": torch.exp2, "exp10": lambda x: torch.pow(10.0, x),
    "expm1": torch.expm1, "log": torch.log, "log2": torch.log2, "log10": torch.log10,
    "log1p": torch.log1p, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "cbrt": _cbrt,
    "rcbrt": lambda x: 1.0 / _cbrt(x), "erf": torch.erf, "erfc": torch.erfc,
    "erfinv": torch.erfinv, "erfcinv": lambda x: torch.erfinv(1.0 - x),
    "erfcx": lambda x: torch.special.erfcx(x), "lgamma": torch.lgamma,
    "floor": torch.floor, "ceil": torch.ceil, "trunc": torch.trunc, "rint": torch.round,
    "nearbyint": torch.round, "round": _round_half_away, "fabs": torch.abs, "abs": torch.abs,
    "llabs": torch.abs, "rcp": torch.reciprocal, "sinpi": lambda x: torch.sin(math.pi * x),
    "cospi": lambda x: torch.cos(math.pi * x), "normcdf": _normcdf,
    "normcdfinv": lambda x: torch.special.ndtri(x), "saturate": lambda x: x.clamp(0.0, 1.0),
    "isnan": _as_int(torch.isnan), "isinf": _as_int(torch.isinf),
    "finite": _as_int(torch.isfinite), "isfinite": _as_int(torch.isfinite),
    "signbit": _as_int(torch.signbit), "j0": torch.special.bessel_j0,
    "j1": torch.special.bessel_j1, "y0": torch.special.bessel_y0,
    "y1": torch.special.bessel_y1, "cyl_bessel_i0": torch.special.i0,
    "cyl_bessel_i1": torch.special.i1,
}
_BINARY: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "pow": torch.pow, "powi": torch.pow, "atan2": torch.atan2, "fmod": torch.fmod,
    "remainder": _ieee_remainder, "fmax": torch.fmax, "fmin": torch.fmin,
    "hypot": torch.hypot, "copysign": torch.copysign,
    "fdim": lambda x, y: torch.clamp(x - y, min=0), "add": torch.add, "sub": torch.sub,
    "mul": torch.mul, "div": torch.div, "fdivide": torch.div, "nextafter": torch.nextafter,
    "ldexp": lambda x, e: x * torch.pow(2.0, e.to(x.dtype)),
    "scalbn": lambda x, e: x * torch.pow(2.0, e.to(x.dtype)),
    "rhypot": lambda x, y: 1.0 / torch.hypot(x, y), "max": torch.maximum,
    "min": torch.minimum, "umax": torch.maximum, "umin": torch.minimum,
}
_TERNARY: dict[str, Callable[..., torch.Tensor]] = {
    "fma": lambda x, y, z: x * y + z,
    "norm3d": lambda x, y, z: torch.sqrt(x * x + y * y + z * z),
    "rnorm3d": lambda x, y, z: torch.rsqrt(x * x + y * y + z * z),
}


_ROUNDING: dict[str, Callable[..., torch.Tensor]] = {
    "rn": torch.round, "rz": torch.trunc, "rd": torch.floor, "ru": torch.ceil}
_INTS = {"int": torch.int32, "uint": torch.int64, "ll": torch.int64, "ull": torch.int64}
_BITCASTS = {"float_as_int": torch.int32, "int_as_float": torch.float32,
             "float_as_uint": torch.int32, "uint_as_float": torch.float32,
             "double_as_longlong": torch.int64, "longlong_as_double": torch.float64}


def _conversion(name: str) -> Callable[[torch.Tensor], torch.Tensor] | None:
    """float2int_rn, double2ll_rz, llrint ...: a rounding then an integer type; a bit cast."""
    if name in _BITCASTS:
        dtype = _BITCASTS[name]
        return lambda x: x.contiguous().view(dtype)
    if name in ("llrint", "llrintf", "llround", "llroundf"):
        to_int: Callable[..., torch.Tensor] = torch.round if "rint" in name else _round_half_away
        return lambda x: to_int(x).to(torch.int64)
    src, _, rest = name.partition("2")
    dst, _, mode = rest.partition("_")
    if src in ("float", "double") and dst in _INTS and mode in _ROUNDING:
        rounder, dtype = _ROUNDING[mode], _INTS[dst]
        return lambda x: rounder(x).to(dtype)
    return None


_BY_ARITY: dict[int, dict[str, Callable[..., torch.Tensor]]] = {1: _UNARY, 2: _BINARY,
                                                                3: _TERNARY}


def libdevice_function(symbol: str, arity: int) -> Callable[..., torch.Tensor]:
    """The PyTorch counterpart of a libdevice symbol (`__nv_tanhf`, `__nv_fdiv_rn`, ...), or
    InterpreterLimitation when there is none."""
    name = symbol.removeprefix("__nv_")
    if arity == 1:
        converted = _conversion(name)
        if converted is not None:
            return converted
    table = _BY_ARITY.get(arity, {})
    for candidate in _spellings(name):
        if candidate in table:
            return table[candidate]
    raise InterpreterLimitation(f"libdevice {symbol} has no faithful CPU counterpart in kgb's "
                                f"interpreter repairs")


def _spellings(name: str) -> list[str]:
    """fp32 variants end in `f`, rounding-mode variants in `_rn/_rz/_rd/_ru` with an `f`/`d`
    type prefix (`fdiv_rn`, `dadd_rz`), fast variants start with `fast_`; the rounding mode of
    an approximate or directed variant is within every task's tolerance."""
    out = [name]
    base = name.removeprefix("fast_")
    for suffix in ("_rn", "_rz", "_rd", "_ru"):
        base = base.removesuffix(suffix)
    out.append(base)
    if base.endswith("f"):
        out.append(base[:-1])
    if base[:1] in ("f", "d") and len(base) > 3:
        out.append(base[1:])
        if base[1:].endswith("f"):
            out.append(base[1:-1])
    if base.endswith("d") and base[:-1] in ("isnan", "isinf", "isfinite", "signbit"):
        out.append(base[:-1])
    return out


def extern_elementwise(symbol: str, args: list[Any], np_dtype: Any) -> np.ndarray:
    """Compute a libdevice call on interpreter tensor data (numpy arrays)."""
    fn = libdevice_function(symbol, len(args))
    tensors = [torch.from_numpy(np.ascontiguousarray(a)) for a in args]
    result = fn(*tensors)
    return np.asarray(result.numpy(), dtype=np_dtype)
