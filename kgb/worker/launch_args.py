"""Threat 34: host objects through a launch. Compiled Triton hands a kernel pointers, numbers and
compile-time constants; the CPU interpreter hands its body whatever the launch passed (a
`tl.constexpr` or any argument type it does not convert reaches the body unchanged), so a
tensor or the `torch` module passed to a kernel let its body run PyTorch (`C.copy_(A @ B)`
passed matmul on the CPU) or anything else (`T.os.system(...)`). Two pieces of evidence, for
the trusted side to rule on (D207):

- `refused_arguments`: at every launch (interpreter and GPU, before anything compiles or runs),
  each argument no compiled kernel could take. A constexpr must be a compile-time value (None,
  bool, int, float, str, a Triton or torch dtype, a jit function or Triton builtin, or a tuple
  of those); any other argument must be one Triton's own launcher specializes
  (`native_specialize_impl`: tensors, numbers, tensor descriptors, tuples ...).
- `KernelBodyWatch`: while an interpreted kernel body runs, the aten ops called from anywhere
  but the interpreter and kgb's repairs of it (which move and convert the kernel's data with
  torch) are PyTorch computing inside a kernel, where compiled Triton has no PyTorch."""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import os
import sys
from collections.abc import Iterator
from types import FrameType, ModuleType
from typing import Any

MAX_NOTES = 8  # per call: evidence is capped, the first ones name the problem
_DEPTH = 8  # tuples of tuples of constexprs, no deeper


def refused_arguments(kernel: Any, args: tuple, kwargs: dict) -> list[str]:
    """One line for each argument (or default) of a launch of `kernel` (a JITFunction or an
    InterpretedFunction) that no compiled kernel could take."""
    fn = getattr(kernel, "fn", None)
    if not inspect.isfunction(fn):
        return []
    seen = (dict(fn.__annotations__), fn.__defaults__, fn.__kwdefaults__)  # rewritable
    cached = _PARAMS.get(fn)
    if cached is not None and cached[0] == seen:
        params = cached[1]
    else:
        try:
            params = tuple((p.name, _is_constexpr(p), p.default)
                           for p in inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            return []
        _PARAMS[fn] = (seen, params)
    found = []
    for index, (name, constexpr, default) in enumerate(params):
        if index < len(args):
            value = args[index]
        elif name in kwargs:
            value = kwargs[name]
        elif default is not inspect.Parameter.empty:
            value = default
        else:
            continue
        if type(value) in _PLAIN or (not constexpr and type(value) is _tensor_type()):
            continue  # the common cases, on every launch: nothing to look at
        why = _constexpr_refusal(value, 0) if constexpr else _argument_refusal(value)
        if why:
            kind = "constexpr argument" if constexpr else "argument"
            found.append(f"{fn.__name__}: {kind} {name} is {why}")
    return found


# Triton's runtime hooks (triton.knobs.runtime): called inside a launch (by the compiled
# launcher, the compiler and the JIT's cache), where no honest kernel file sets them.
KNOB_HOOKS = ("launch_enter_hook", "launch_exit_hook", "jit_cache_hook",
              "jit_post_compile_hook", "add_stages_inspection_hook", "kernel_load_start_hook",
              "kernel_load_end_hook", "kernel_unload_hook")


def refused_callables(kernel: Any, grid: Any) -> list[str]:
    """One line for each callable the candidate handed Triton that Triton would call inside
    this launch (its pre-run hooks, a grid function, the allocator, a runtime hook) and whose
    PyTorch work the body watch could not tell from Triton's own: anything that is not the
    candidate's own Python code (a C builtin such as torch.Tensor.addmm_, a torch function,
    a Triton function) is called from a Triton frame, so its ops would look like Triton's."""
    name = getattr(getattr(kernel, "fn", None), "__name__", "?")
    found = []
    for hook in list(getattr(kernel, "pre_run_hooks", None) or ())[:MAX_NOTES]:
        why = _foreign(hook)
        if why:
            found.append(f"{name}: a pre-run hook is {why}")
    if callable(grid):
        why = _foreign(grid)
        if why:
            found.append(f"{name}: the grid is {why}")
    modules = _runtime_modules()
    if modules is None:  # pragma: no cover - an older Triton
        return found
    knobs, _allocation = modules
    for knob in KNOB_HOOKS:
        hook = getattr(knobs.runtime, knob, None)
        if hook is not None and not (type(hook) is knobs.HookChain and not hook.calls):
            found.append(f"{name}: triton.knobs.runtime.{knob} is set (a hook Triton calls "
                         f"inside the launch; kernel files may not set it)")
    allocator = _allocation._allocator.get()
    if not isinstance(allocator, _allocation.NullAllocator):
        why = _foreign(allocator)
        if why:
            found.append(f"{name}: the allocator (triton.set_allocator) is {why}")
    return found


def _foreign(hook: Any) -> str | None:
    """Why `hook` is not plain Python code of the candidate's (whose frames the body watch
    sees), or None when it is: a function or method, possibly under functools.partial, whose
    code lives outside torch, Triton and kgb's worker."""
    import functools

    inner, depth = hook, 0
    while isinstance(inner, functools.partial) and depth < _DEPTH:
        inner, depth = inner.func, depth + 1
    call = vars(type(inner)).get("__call__")  # an instance of a class with a Python __call__
    if not (inspect.isfunction(inner) or inspect.ismethod(inner)) and inspect.isfunction(call):
        inner = call
    inner = getattr(inner, "__func__", inner)  # a bound method
    code = getattr(inner, "__code__", None) if inspect.isfunction(inner) else None
    if code is None:
        what = _describe(hook).split(" (a host object")[0]
        return f"{what}, not a Python function of the kernel file"
    if _library_file(code.co_filename):
        return f"{getattr(inner, '__qualname__', '?')} from " \
               f"{os.path.basename(code.co_filename)}, not a function of the kernel file"
    return None


@functools.lru_cache(maxsize=4096)
def _library_file(filename: str) -> bool:
    """Whether code of this file is torch's, Triton's or kgb's worker's (remembered: a
    realpath per launch would cost syscalls on every traced launch)."""
    import torch

    real = os.path.realpath(filename)
    torch_dir = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep
    return real.startswith(_TRUSTED_DIRS()) or real.startswith(torch_dir)


@functools.cache
def _runtime_modules() -> tuple[Any, Any] | None:
    """triton.knobs and triton.runtime._allocation, or None on a Triton without them."""
    try:
        from triton import knobs
        from triton.runtime import _allocation
    except ImportError:  # pragma: no cover - an older Triton
        return None
    return knobs, _allocation


# per kernel function, read again only when its annotations or defaults change
_PARAMS: dict[Any, tuple[Any, tuple[tuple[str, bool, Any], ...]]] = {}
_PLAIN = frozenset({int, float, bool, type(None)})  # valid in either role


def _is_constexpr(param: inspect.Parameter) -> bool:
    """Triton's own rule (KernelParam.is_constexpr: 'constexpr' in the normalized annotation,
    which covers the interpreter's stricter equality); a parameter without annotation is not."""
    try:
        from triton.runtime.jit import KernelParam

        return bool(KernelParam(0, param, False, False).is_constexpr)
    except Exception:  # an annotation Triton cannot read: judged as a constexpr, the stricter
        return True


def _argument_refusal(value: Any) -> str | None:
    """A runtime argument: Triton's launcher must specialize it (it refuses modules, functions,
    containers, strings ...); what it keeps as a constant is judged as a constexpr."""
    import triton.language as tl

    try:
        from triton._C.libtriton import native_specialize_impl
        from triton.backends.compiler import BaseBackend
    except ImportError:  # pragma: no cover - an older Triton: tensors and numbers only
        if hasattr(value, "data_ptr") or type(value) in (bool, int, float) or value is None:
            return None
        return _constexpr_refusal(value, 0)
    if type(value) in _triton_types() and not isinstance(value, tl.constexpr):
        return None  # a jit function (interpreted on the CPU: what a JITFunction is compiled)
    try:
        native_specialize_impl(BaseBackend, value, False, True, True)
    except Exception:
        return _describe(value)
    if isinstance(value, tuple):
        return next(filter(None, map(_argument_refusal, value)), None)
    if isinstance(value, tl.constexpr) or not (hasattr(value, "data_ptr") or
                                               type(value) in (bool, int, float)):
        return _constexpr_refusal(value, 0)  # a constant: jit functions, None, constexprs
    return None


def _constexpr_refusal(value: Any, depth: int) -> str | None:
    """Why `value` is no compile-time constant, or None when it is one. Exact types: a
    subclass of int or str could carry methods that run in an interpreted body."""
    import numpy as np
    import torch
    import triton.language as tl

    kind = type(value)
    if value is None or kind in (bool, int, float, str) or kind is torch.dtype:
        return None
    if isinstance(value, (np.bool_, np.number)) and kind.__module__ == "numpy":
        return None
    if kind in _triton_types():
        return None if kind is not tl.constexpr else _constexpr_refusal(value.value, depth)
    if _is_triton_builtin(value) or _is_plain_int_enum(value):
        return None
    if kind is tuple or (isinstance(value, tuple) and hasattr(kind, "_fields") and
                         not _defines_functions(kind, tuple)):
        if depth >= _DEPTH:
            return "a tuple nested too deep"
        return next((why for why in (_constexpr_refusal(v, depth + 1) for v in value) if why),
                    None)
    return _describe(value)


@functools.cache
def _tensor_type() -> type:
    import torch

    return torch.Tensor


@functools.cache
def _triton_types() -> frozenset[type]:
    """tl.constexpr, Triton's dtype classes and the jit function classes, exactly: the classes
    Triton defines, not subclasses a kernel file could add methods to."""
    import triton.language as tl
    from triton.runtime import jit

    kinds: set[type] = {tl.constexpr}
    kinds |= {c for c in vars(tl.core).values() if isinstance(c, type) and issubclass(c, tl.dtype)}
    kinds |= {c for c in vars(jit).values() if isinstance(c, type) and
              issubclass(c, getattr(jit, "JITCallable", jit.JITFunction))}
    try:
        from triton.runtime.interpreter import InterpretedFunction
        kinds.add(InterpretedFunction)
    except ImportError:  # pragma: no cover
        pass
    return frozenset(kinds)


def _is_triton_builtin(value: Any) -> bool:
    """A triton.language builtin (tl.maximum passed as a combine function), or kgb's
    interpreter-ready wrapper of one: marked so, with its code in Triton's or kgb's worker."""
    code = getattr(value, "__code__", None)
    return bool(getattr(value, "__triton_builtin__", False)) and code is not None and \
        os.path.realpath(code.co_filename).startswith(_TRUSTED_DIRS())


def _is_plain_int_enum(value: Any) -> bool:
    """An IntEnum member whose class defines no functions (compiled Triton takes it as an
    int): one with methods could run them in an interpreted body."""
    return isinstance(value, enum.IntEnum) and not _defines_functions(type(value), enum.Enum)


def _defines_functions(kind: type, base: type) -> bool:
    """Whether a class below `base` (an IntEnum, a namedtuple) has code of its own: methods,
    properties, class or static methods beyond what enum/collections generate."""
    stdlib = (os.path.dirname(os.path.realpath(enum.__file__)) + os.sep, "<string>")
    for klass in kind.__mro__:
        if klass is base or klass.__module__ in ("enum", "builtins", "typing"):
            continue
        for value in vars(klass).values():
            inner = value.__func__ if isinstance(value, (classmethod, staticmethod)) else \
                value.fget if isinstance(value, property) else value
            code = getattr(inner, "__code__", None)
            if code is not None and not code.co_filename.startswith(stdlib):
                return True
            if isinstance(value, property) and code is None:
                return True
    return False


def _describe(value: Any) -> str:
    if isinstance(value, ModuleType):
        return f"the module {value.__name__} (a host object: no compiled kernel can take it)"
    kind = type(value)
    what = f"{kind.__module__}.{kind.__qualname__}" if kind.__module__ != "builtins" else \
        kind.__qualname__
    name = getattr(value, "__qualname__", None) if callable(value) else None
    return f"a {what}{f' ({name})' if isinstance(name, str) else ''} (a host object: no " \
           f"compiled kernel can take it)"


@functools.cache
def _TRUSTED_DIRS() -> tuple[str, ...]:
    import triton

    worker = os.path.dirname(os.path.realpath(__file__))
    return (os.path.dirname(os.path.realpath(triton.__file__)) + os.sep, worker + os.sep)


# What the candidate's own code may do inside a launch: allocate (triton.set_allocator's
# callable hands a compiled launch its scratch). What it allocates there is poisoned like any
# allocation of its host code, so nothing allocated inside a launch holds a stale answer.
_ALLOCATIONS = frozenset({"empty", "empty_like", "empty_strided", "new_empty",
                          "new_empty_strided"})


def _poisoned(result: Any) -> Any:
    import torch

    if isinstance(result, torch.Tensor) and result.device.type != "meta":
        storage = result.untyped_storage()
        if storage.nbytes():
            storage.fill_(0xFF)  # type: ignore[attr-defined]  # not in torch's stubs
    return result


class KernelBodyWatch:
    """Records the aten ops an interpreted launch runs that neither Triton's interpreter nor
    kgb's repairs of it called: the first Python frame outside torch that led to the op
    decides, so an op the kernel body (or any helper of the candidate's, or the standard
    library on its behalf) called is the candidate's."""

    def __init__(self) -> None:
        self.ops: set[str] = set()
        self._torch_dir = ""
        self._trusted: tuple[str, ...] = ()
        self._real: dict[str, str] = {}
        self._passthrough = ""

    @contextlib.contextmanager
    def watching(self, kernel: str) -> Iterator[None]:
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode

        if not self._trusted:
            self._torch_dir = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep
            self._trusted = _TRUSTED_DIRS()
            # The CPU run's CUDA disguise (cuda_on_cpu.py, beside this file: no worker module
            # is imported once the candidate runs) forwards the candidate's own torch calls:
            # its frames pass through like torch's, or a body's PyTorch would look like kgb's.
            self._passthrough = os.path.join(
                os.path.dirname(os.path.realpath(__file__)), "cuda_on_cpu.py")
        watch = self

        class Mode(TorchDispatchMode):
            @classmethod
            def _should_skip_dynamo(cls) -> bool:
                return False  # no torch._dynamo import in the worker (evidence.py says why)

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                origin = watch._origin()
                name = func._schema.name.split("::")[-1]
                if origin is not None and name in _ALLOCATIONS:  # the allocator's scratch
                    return _poisoned(func(*args, **(kwargs or {})))
                if origin is not None and len(watch.ops) < MAX_NOTES:
                    watch.ops.add(f"{name} in kernel {kernel} (from {origin})")
                return func(*args, **(kwargs or {}))

        with Mode():
            yield

    def _origin(self) -> str | None:
        """`file:line` of the frame that called into torch, or None when it is Triton's
        interpreter or kgb's worker."""
        frame: FrameType | None = sys._getframe(2)
        while frame is not None:
            name = frame.f_code.co_filename
            real = self._real.get(name)
            if real is None:
                real = self._real[name] = os.path.realpath(name)
            if real.startswith(self._torch_dir) or real == self._passthrough:
                frame = frame.f_back
                continue
            if real.startswith(self._trusted):
                return None
            return f"{os.path.basename(name)}:{frame.f_lineno}"
        return None
