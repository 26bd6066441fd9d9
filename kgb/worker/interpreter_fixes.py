"""Make Triton's CPU interpreter compute what compiled Triton computes, where its divergence is
a plain bug with a one-line cause (shared/cpu-interpreter.md):

- `tl.dot` on bfloat16: the interpreter stores bf16 as uint16 and hands those integers to
  np.matmul, so the "product" is garbage. Fix: upcast bf16 operands to fp32 (exact) first, which
  is what the tensor cores do before accumulating in fp32.
- fp32 → bf16 casts truncate instead of rounding to nearest even (GPU `cvt.rn.bf16.f32`), so an
  honest bf16 kernel is up to 1 ulp low everywhere. Fix: convert through torch, which rounds.
- Python float arguments: compiled Triton passes them as fp32 scalars, so `x_fp16 * alpha`
  computes in fp32; the interpreter passes the raw Python float, a weakly typed literal, so the
  same product is rounded to fp16. Fix: pass float arguments as fp32 scalars, as ints already are
  passed as int32.

Applied by the candidate worker (only under TRITON_INTERPRET=1) before the candidate is
imported. `available()` tells the trusted planner whether this Triton has the internals the
fixes need; where it does not, the affected cases stay `not_checkable` instead."""

from __future__ import annotations

BF16_DOT_FIX = "bf16-dot-upcast"
BF16_ROUNDING_FIX = "bf16-round-to-nearest"
FLOAT_ARGS_FIX = "float-args-fp32"


def available() -> bool:
    try:
        from triton.runtime import interpreter as it
    except ImportError:
        return False
    builder = getattr(it, "InterpreterBuilder", None)
    return all((builder is not None, hasattr(it, "_convert_float"), hasattr(it, "TensorHandle"),
                hasattr(builder, "create_dot"), hasattr(builder, "cast_impl"),
                hasattr(it, "_implicit_cvt")))


def apply() -> tuple[str, ...]:
    if not available():
        return ()
    import numpy as np
    import torch
    import triton.language as tl
    from triton.runtime import interpreter as it

    builder = it.InterpreterBuilder
    original_dot, original_cast = builder.create_dot, builder.cast_impl
    original_cvt = it._implicit_cvt

    def as_fp32(handle):
        if handle.dtype.scalar == tl.bfloat16:
            data = it._convert_float(handle.data, tl.bfloat16, tl.float32, None).view(np.float32)
            return it.TensorHandle(data, tl.float32)
        return handle

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        return original_dot(self, as_fp32(a), as_fp32(b), d, input_precision,
                            max_num_imprecise_acc)

    def cast_impl(self, src, dst_type):
        if src.dtype.scalar == tl.float32 and dst_type.scalar == tl.bfloat16:
            values = torch.from_numpy(np.ascontiguousarray(src.data, dtype=np.float32))
            data = values.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
            return it.TensorHandle(data, dst_type.scalar)
        return original_cast(self, src, dst_type)

    def implicit_cvt(arg):
        if isinstance(arg, float):  # bool and int are not float; constexpr args never get here
            return tl.tensor(it.TensorHandle(np.array([arg], dtype=np.float32), tl.float32),
                             tl.float32)
        return original_cvt(arg)

    builder.create_dot = create_dot
    builder.cast_impl = cast_impl
    it._implicit_cvt = implicit_cvt
    return (BF16_DOT_FIX, BF16_ROUNDING_FIX, FLOAT_ARGS_FIX)


def keep_first_autotune_config() -> bool:
    """On the CPU interpreter, multi-config autotune cannot benchmark ('0 active drivers').
    Make every autotuner keep the first config its pruning leaves, so honest autotuned kernels
    run; the report says so."""
    from triton.runtime.autotuner import Autotuner

    original = Autotuner.prune_configs

    def prune_configs(self, kwargs, *rest):
        return original(self, kwargs, *rest)[:1]

    Autotuner.prune_configs = prune_configs
    return True
