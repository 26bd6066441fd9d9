"""Make Triton's CPU interpreter compute what compiled Triton computes, where its divergence is
a plain bug with a one-line cause (shared/cpu-interpreter.md):

- `tl.dot` on bfloat16: the interpreter stores bf16 as uint16 and hands those integers to
  np.matmul, so the "product" is garbage. Fix: upcast bf16 operands to fp32 (exact) first, which
  is what the tensor cores do before accumulating in fp32.
- `tl.dot` on float32 at its default precision: a GPU multiplies in TF32 (10 mantissa bits,
  the fp32 operands' 13 low bits ignored), the interpreter in full float32, so a float32 GEMM
  whose task asks for IEEE products passed on the CPU and was incorrect on an H200. Fix: read
  float32 operands as the tensor cores do for "tf32" (`allow_tf32=True` too); "ieee" and
  "tf32x3" keep full precision.
- fp32 → bf16 casts truncate instead of rounding to nearest even (GPU `cvt.rn.bf16.f32`), so an
  honest bf16 kernel is up to 1 ulp low everywhere. Fix: convert through torch, which rounds.
- Python float arguments: compiled Triton passes them as fp32 scalars, so `x_fp16 * alpha`
  computes in fp32; the interpreter passes the raw Python float, a weakly typed literal, so the
  same product is rounded to fp16. Fix: pass float arguments as fp32 scalars, as ints already are
  passed as int32.
- Arithmetic, comparisons, min/max and reductions on bfloat16 values: the interpreter applies
  numpy to the raw uint16 bit patterns (1.5 + 2.0 is NaN, max(-1.5, -2.0) is -2.0). Fix:
  compute on the values in fp32 and round once to bfloat16, as the GPU does.
- `libdevice.*` functions are stubs returning None in the interpreter. Fix: route them to the
  CUDA libdevice declarations and compute each symbol with PyTorch (interpreter_libdevice).
- Python `and`/`or`/`not` on block tensors: compiled Triton applies them elementwise
  (logical_and/or/not, constexprs short-circuiting); the interpreter takes the truth value of a
  whole block (always True). Fix: rewrite them in kernel bodies to the compiled semantics.
- Loop variables of `for i in range(...)` / `tl.range(...)`: compiled Triton makes them int32
  (int64 when a bound is) scalar tensors, so `i.to(tl.int64)` is common in real kernels; the
  interpreter hands out Python ints, which have no `.to`. Fix: yield scalar tensors of the
  compiled type (`tl.static_range` keeps Python ints, as compiled).
- Casts to and from float8 e4m3 (`tl.float8e4nv`) and e5m2 (`tl.float8e5`): the interpreter's
  bit arithmetic rounds ties away from zero, flushes subnormals and wraps values past the largest
  finite one (500 -> 256 in e4m3). Fix: convert through torch's float8 dtypes, rounding to nearest
  even and saturating to the largest finite value as the GPU's `cvt.rn.satfinite` does.
- What the interpreter cannot do at all — compiled kernels from `kernel.warmup(...)`, the GPU
  driver (device properties, streams) — raises InterpreterLimitation with the reason, so the
  case is not checkable on the CPU for that reason alone.

Applied by the candidate worker (only under TRITON_INTERPRET=1) before the candidate is
imported. Each fix is reported by name; the trusted side treats a limitation whose fix is
missing as not checkable (kgb.runner.interpreter)."""

from __future__ import annotations

import ast
from typing import Any

from kgb.protocol import (
    BF16_ARITHMETIC_FIX,
    BF16_DOT_FIX,
    BF16_ROUNDING_FIX,
    BOOL_OPS_FIX,
    FLOAT_ARGS_FIX,
    FP8_CAST_FIX,
    GDC_FIX,
    LIBDEVICE_FIX,
    LIMITATIONS_NAMED,
    LOOP_VARS_FIX,
    TF32_DOT_FIX,
)
from kgb.worker.interpreter_libdevice import InterpreterLimitation, extern_elementwise


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
        if _reads_operands_as_tf32(a, b, input_precision):
            a, b = (it.TensorHandle(tf32_operand(h.data), h.dtype) for h in (a, b))
        return original_dot(self, as_fp32(a), as_fp32(b), d, input_precision,
                            max_num_imprecise_acc)

    def cast_impl(self, src, dst_type):
        source, target = src.dtype.scalar, dst_type.scalar
        if target == tl.bfloat16 and source != tl.bfloat16:
            # Any type to bf16 goes through its fp32 value (exact for ints below 2**24, fp16)
            # and rounds to nearest even; the interpreter would copy integer bits.
            if source != tl.float32:
                src = original_cast(self, src, tl.float32)
            values = torch.from_numpy(np.ascontiguousarray(src.data, dtype=np.float32))
            data = values.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
            return it.TensorHandle(data, target)
        if source == tl.bfloat16 and target not in (tl.bfloat16, tl.float32):
            widened = it._convert_float(src.data, tl.bfloat16, tl.float32, None).view(np.float32)
            return original_cast(self, it.TensorHandle(widened, tl.float32), dst_type)
        return original_cast(self, src, dst_type)

    def implicit_cvt(arg):
        if isinstance(arg, float):  # bool and int are not float; constexpr args never get here
            return tl.tensor(it.TensorHandle(np.array([arg], dtype=np.float32), tl.float32),
                             tl.float32)
        return original_cvt(arg)

    builder.create_dot = create_dot
    builder.cast_impl = cast_impl
    it._implicit_cvt = implicit_cvt
    return (BF16_DOT_FIX, TF32_DOT_FIX, BF16_ROUNDING_FIX, FLOAT_ARGS_FIX,
            *_apply_bf16_arithmetic(it),
            *_apply_libdevice(it), *_apply_fp8_casts(it), *_apply_grid_dependency_control(it),
            *_apply_kernel_syntax(it), *_apply_named_limitations(it))


def _reads_operands_as_tf32(a: Any, b: Any, input_precision: Any) -> bool:
    """float32 operands of a dot whose precision is TF32 (tl.dot's default on a GPU, and
    `allow_tf32=True`); "ieee" and "tf32x3" (three TF32 products, about float32's precision)
    keep them whole, as do other dtypes (float64 dots never use TF32)."""
    import triton.language as tl

    return getattr(input_precision, "name", None) == "TF32" and \
        a.dtype.scalar == tl.float32 and b.dtype.scalar == tl.float32


def tf32_operand(data: Any) -> Any:
    """float32 values as a tensor core reads them in a TF32 MMA: compiled Triton hands the fp32
    registers to `mma`/`wgmma ... .tf32` with no conversion (it emits `cvt.rna.tf32.f32` only
    for tf32x3; tests/test_interpreter_fixes.py reads the PTX), and the hardware ignores the 13
    low mantissa bits: a truncation toward zero. NaN and infinity stay what they are."""
    import numpy as np

    values = np.ascontiguousarray(data, dtype=np.float32)
    kept = (values.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
    return np.where(np.isfinite(values), kept, values)


def _apply_bf16_arithmetic(it: Any) -> tuple[str, ...]:
    import numpy as np
    import torch
    import triton.language as tl

    def values(data):  # bf16 bit patterns (uint16) -> fp32 values, exactly
        return (np.asarray(data, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)

    def bits(data):  # fp32 values -> bf16 bit patterns, round to nearest even
        tensor = torch.from_numpy(np.ascontiguousarray(data, dtype=np.float32))
        return tensor.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)

    named = (tl.core.dtype, tl.core.pointer_type)  # == compares their names (a pointer's is
    # never bf16's); asked on every interpreted op, where dtype.__eq__'s unwrapping showed
    bf16_name = tl.bfloat16.name

    def is_bf16(handle) -> bool:
        scalar = handle.dtype.scalar
        if type(scalar) in named:
            return scalar.name == bf16_name
        return scalar == tl.bfloat16

    builder = it.InterpreterBuilder
    original_binary, original_unary = builder.binary_op, builder.unary_op
    original_ternary, original_fma = builder.ternary_op, builder.create_fma

    def widen(handle):
        return it.TensorHandle(values(handle.data), tl.float32) if is_bf16(handle) else handle

    def narrow(result, was_bf16: bool):
        if was_bf16 and result.data.dtype == np.float32:
            return it.TensorHandle(bits(result.data), tl.bfloat16)
        return result

    def binary_op(self, lhs, rhs, op):
        if not (is_bf16(lhs) or is_bf16(rhs)):
            return original_binary(self, lhs, rhs, op)
        return narrow(original_binary(self, widen(lhs), widen(rhs), op), True)

    def unary_op(self, arg, op):
        if not is_bf16(arg):
            return original_unary(self, arg, op)
        return narrow(original_unary(self, widen(arg), op), True)

    def ternary_op(self, lhs, rhs, other, op):
        if op is np.where or not any(map(is_bf16, (lhs, rhs, other))):
            return original_ternary(self, lhs, rhs, other, op)  # a select moves bits as they are
        return narrow(original_ternary(self, widen(lhs), widen(rhs), widen(other), op), True)

    def create_fma(self, x, y, z):
        if not is_bf16(z):
            return original_fma(self, x, y, z)
        return narrow(original_fma(self, widen(x), widen(y), widen(z)), True)

    builder.binary_op, builder.unary_op = binary_op, unary_op
    builder.ternary_op, builder.create_fma = ternary_op, create_fma

    reduce_ops, scan_ops = it.ReduceOps, it.ScanOps
    original_min_max, original_sum = reduce_ops.min_max, reduce_ops.sum
    original_cumsum, original_cumprod = scan_ops.cumsum, scan_ops.cumprod

    def as_fp32_tensor(tensor):
        return tl.core.tensor(it.TensorHandle(values(tensor.handle.data), tl.float32),
                              tensor.type.with_element_ty(tl.float32))

    def back_to_bf16(result):
        if isinstance(result, tl.core.tensor) and result.handle.data.dtype == np.float32:
            handle = it.TensorHandle(bits(result.handle.data), tl.bfloat16)
            return tl.core.tensor(handle, result.type.with_element_ty(tl.bfloat16)
                                  if result.type.is_block() else tl.bfloat16)
        return result

    def min_max(self, input, val_reduce_op, idx_reduce_op=None):
        value = input[0] if isinstance(input, tuple) else input
        if value.dtype != tl.bfloat16:
            return original_min_max(self, input, val_reduce_op, idx_reduce_op)
        result = original_min_max(self, as_fp32_tensor(value), val_reduce_op, idx_reduce_op)
        return tuple(map(back_to_bf16, result)) if isinstance(result, tuple) else \
            back_to_bf16(result)

    def reduce_sum(self, input):
        if input.dtype != tl.bfloat16:
            return original_sum(self, input)
        return back_to_bf16(original_sum(self, as_fp32_tensor(input)))

    def scan(original):
        def run(self, input):
            if input.dtype != tl.bfloat16:
                return original(self, input)
            return [back_to_bf16(t) for t in original(self, as_fp32_tensor(input))]
        return run

    reduce_ops.min_max, reduce_ops.sum = min_max, reduce_sum
    scan_ops.cumsum, scan_ops.cumprod = scan(original_cumsum), scan(original_cumprod)
    return (BF16_ARITHMETIC_FIX,)


def _apply_fp8_casts(it: Any) -> tuple[str, ...]:
    import numpy as np
    import torch
    import triton.language as tl

    builder = it.InterpreterBuilder
    if not hasattr(builder, "create_fp_to_fp") or not hasattr(torch, "float8_e4m3fn"):
        return ()
    original = builder.create_fp_to_fp
    fp8 = {tl.float8e4nv: torch.float8_e4m3fn, tl.float8e5: torch.float8_e5m2}
    wide = {tl.float32: torch.float32, tl.float16: torch.float16, tl.bfloat16: torch.bfloat16}

    def to_torch(handle):  # the interpreter's bits -> a torch tensor of the same values
        scalar = handle.dtype.scalar
        data = np.ascontiguousarray(handle.data)
        if scalar in fp8:
            return torch.from_numpy(data.view(np.uint8)).view(fp8[scalar])
        if scalar == tl.bfloat16:
            return torch.from_numpy(data.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(data)

    def from_torch(values, scalar):
        if scalar in fp8:
            return values.view(torch.uint8).numpy()
        if scalar == tl.bfloat16:
            return values.view(torch.int16).numpy().view(np.uint16)
        return values.numpy()

    def create_fp_to_fp(self, src, dst_type, rounding_mode):
        source, target = src.dtype.scalar, dst_type.scalar
        rtne = rounding_mode is None or rounding_mode == it._ir.ROUNDING_MODE.RTNE
        if not ((source in fp8 and target in wide) or (source in wide and target in fp8 and rtne)):
            return original(self, src, dst_type, rounding_mode)
        values = to_torch(src).float()
        if target in fp8:  # satfinite: clamp to the largest finite value, NaN stays NaN
            big = torch.finfo(fp8[target]).max
            values = torch.where(values.isnan(), values, values.clamp(-big, big))
            out = values.to(fp8[target])
        else:
            out = values.to(wide[target])
        return it.TensorHandle(from_torch(out.contiguous(), target), target)

    builder.create_fp_to_fp = create_fp_to_fp
    return (FP8_CAST_FIX,)


def _apply_libdevice(it: Any) -> tuple[str, ...]:
    try:
        import triton.language.extra.cuda.libdevice as cuda_libdevice
        import triton.language.extra.libdevice as stubs
    except ImportError:
        return ()
    import numpy as np

    def create_extern_elementwise(self, lib_name, lib_path, symbol, arg_list, ret_type, pure):
        scalar = ret_type.scalar
        data = extern_elementwise(symbol, [a.data for a in arg_list], it._get_np_dtype(scalar))
        return it.TensorHandle(np.asarray(data), scalar)

    it.InterpreterBuilder.create_extern_elementwise = create_extern_elementwise
    # Both spellings compiled Triton accepts: tl.extra.libdevice (stubs it resolves per
    # backend) and tl.extra.cuda.libdevice (the CUDA declarations, vLLM's and SGLang's habit).
    originals = {name: getattr(cuda_libdevice, name) for name in dir(cuda_libdevice)
                 if not name.startswith("_") and getattr(getattr(cuda_libdevice, name),
                                                         "__triton_builtin__", False)}
    for name, real in originals.items():
        setattr(cuda_libdevice, name, _with_interpreter_semantic(real, it))
    for name in dir(stubs):
        real = originals.get(name)
        if name.startswith("_") or real is None or not callable(getattr(stubs, name)):
            continue
        setattr(stubs, name, _with_interpreter_semantic(real, it))
    return (LIBDEVICE_FIX,)


def _apply_grid_dependency_control(it: Any) -> tuple[str, ...]:
    """`tl.extra.cuda.gdc_wait()` / `gdc_launch_dependents()` (programmatic dependent launch on
    sm90+, SGLang's habit) order this grid against its neighbours on the stream; Triton
    documents both as safe without dependent launch. The interpreter runs grids one after
    another and has no builder for them (docs/realworld.md, FP4): there they do nothing."""
    import sys

    try:
        import triton.language as tl
        import triton.language.extra.cuda.gdc as gdc
    except ImportError:
        return ()
    builder = it.InterpreterBuilder
    for name in ("create_grid_dependency_wait", "create_grid_dependency_launch_dependents"):
        if not hasattr(builder, name):
            setattr(builder, name, lambda self: None)
    # triton.language.extra builds its backend packages itself: `tl.extra.cuda` and
    # sys.modules["triton.language.extra.cuda"] (what `from ... import gdc_wait` reads) are
    # two module objects, each with its own binding of the names.
    holders = {id(m): m for m in (gdc, tl.extra.cuda, sys.modules.get("triton.language.extra.cuda"))
               if m is not None}
    for name in ("gdc_wait", "gdc_launch_dependents"):
        real = getattr(gdc, name, None)
        if real is None or getattr(real, "__kgb_interpreter_ready__", False):
            continue
        ready = _with_interpreter_semantic(real, it)
        for module in holders.values():
            setattr(module, name, ready)
    return (GDC_FIX,)


def _with_interpreter_semantic(fn: Any, it: Any) -> Any:
    """`fn` (a Triton builtin) callable in an interpreted kernel body; it keeps the name,
    module and builtin mark compiled Triton's global lookup goes by (kgb.worker.jit_globals)."""
    def call(*args, _semantic=None, **kwargs):
        return fn(*args, _semantic=it.interpreter_semantic, **kwargs)

    call.__name__ = getattr(fn, "__name__", "libdevice")
    call.__qualname__ = getattr(fn, "__qualname__", call.__name__)
    call.__module__ = getattr(fn, "__module__", call.__module__)
    call.__triton_builtin__ = True  # type: ignore[attr-defined]
    call.__kgb_interpreter_ready__ = True  # type: ignore[attr-defined]
    return call


def bind_builtin_aliases(module: Any) -> int:
    """Names of the candidate's module bound to Triton builtins (`my_cast = tl.cast`,
    `from triton.language import cdiv`): compiled Triton resolves them like `tl.cast`; the
    interpreter only patches builtins reached through the `tl` module, so these would fail
    with "Did you forget to add @triton.jit". Rebinds them to interpreter-ready versions (under
    the interpreter only: host code calling a builtin is an error in compiled Triton too)."""
    if not available():
        return 0
    from triton.runtime import interpreter as it

    bound = 0
    for name, value in list(vars(module).items()):
        if getattr(value, "__triton_builtin__", False) and callable(value) and \
                not getattr(value, "__kgb_interpreter_ready__", False) and \
                str(getattr(value, "__module__", "")).startswith("triton.language"):
            setattr(module, name, _with_interpreter_semantic(value, it))
            bound += 1
    return bound


def _apply_kernel_syntax(it: Any) -> tuple[str, ...]:
    """Compile `a and b`, `a or b`, `not a` and loop variables in kernel bodies as Triton's code
    generator does (triton/compiler/code_generator.py: _apply_boolean_values, visit_UnaryOp,
    visit_For)."""
    transformer_cls = type(it.FunctionRewriter.ast_transformer)
    import numpy as np
    import triton.language as tl

    class KernelSyntax(transformer_cls):  # type: ignore[misc, valid-type]
        def visit_For(self, node):
            node = self.generic_visit(node)
            call = node.iter
            if isinstance(call, ast.Call) and _loop_range(call.func):
                node.iter = ast.copy_location(
                    ast.Call(func=ast.Name(id="_kgb_loop", ctx=ast.Load()),
                             args=[call.func, *call.args], keywords=call.keywords), call)
            return node

        def visit_BoolOp(self, node):
            node = self.generic_visit(node)
            op = "and" if isinstance(node.op, ast.And) else "or"
            no_args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                    defaults=[])
            thunks = [ast.Lambda(args=no_args, body=value) for value in node.values]
            call = ast.Call(func=ast.Name(id="_kgb_boolean", ctx=ast.Load()),
                            args=[ast.Constant(op), *thunks], keywords=[])
            return ast.copy_location(call, node)

        def visit_UnaryOp(self, node):
            node = self.generic_visit(node)
            if isinstance(node.op, ast.Not):
                call = ast.Call(func=ast.Name(id="_kgb_not", ctx=ast.Load()),
                                args=[node.operand], keywords=[])
                return ast.copy_location(call, node)
            return node

    def boolean(op, *thunks):
        method = "logical_and" if op == "and" else "logical_or"
        dynamic = []
        value = None
        for thunk in thunks:
            value = thunk()
            if isinstance(value, tl.tensor):
                dynamic.append(value)
                continue
            truth = bool(value)  # a Python value or constexpr short-circuits, as compiled
            if (not truth and op == "and") or (truth and op == "or"):
                return value
        if not dynamic:
            return value
        while len(dynamic) >= 2:
            rhs, lhs = dynamic.pop(), dynamic.pop()
            dynamic.append(getattr(lhs, method)(rhs))
        return dynamic[0]

    def negate(value):
        return value == 0 if isinstance(value, tl.tensor) else not value

    def loop(make_range, *args, **kwargs):
        wide = any((isinstance(a, tl.tensor) and a.dtype in (tl.int64, tl.uint64)) or
                   (isinstance(a, int) and not -2**31 <= a < 2**31) for a in args)
        np_type, tl_type = (np.int64, tl.int64) if wide else (np.int32, tl.int32)
        for i in make_range(*args, **kwargs):
            yield tl.tensor(it.TensorHandle(np.array([int(i)], dtype=np_type), tl_type), tl_type)

    it.FunctionRewriter.ast_transformer = KernelSyntax()
    # the rewritten bodies see the interpreter module's names
    it._kgb_boolean, it._kgb_not, it._kgb_loop = boolean, negate, loop
    return (BOOL_OPS_FIX, LOOP_VARS_FIX)


def _loop_range(func: ast.expr) -> bool:
    """`range(...)` or `<module>.range(...)` (tl.range), not `static_range`."""
    if isinstance(func, ast.Name):
        return func.id == "range"
    return isinstance(func, ast.Attribute) and func.attr == "range"


def _apply_named_limitations(it: Any) -> tuple[str, ...]:
    """Failures the interpreter cannot avoid, raised with their reason."""
    import sys

    import triton.runtime.driver  # noqa: F401  (the module; its name is shadowed by an object)

    driver_module: Any = sys.modules["triton.runtime.driver"]

    def no_warmup(self, *args, **kwargs):
        raise InterpreterLimitation("kernel.warmup(...) returns a compiled GPU kernel, which the "
                                    "CPU interpreter cannot build")

    def no_driver():
        raise InterpreterLimitation("the CPU interpreter has no GPU driver (device properties, "
                                    "streams, compiled kernels)")

    it.InterpretedFunction.warmup = no_warmup
    driver_module._create_driver = no_driver
    return (LIMITATIONS_NAMED,)


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
