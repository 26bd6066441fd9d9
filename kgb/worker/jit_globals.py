"""A compile error the CPU interpreter hides: a @triton.jit function reading a plain global.

Compiled Triton lets a kernel read only globals that are constexpr (`X = tl.constexpr(1.0)`),
modules, other Triton functions, Triton builtins and dtypes; anything else (`EPS = 1e-6`, a
plain Python function) is a NameError at compile time. The interpreter runs the body as Python
and accepts it, so without this check such a kernel passes on the CPU and fails on every GPU
(seen on the H200 with a gelu kernel). Run in the candidate worker after import, on the
candidate's own module, only under the interpreter; it reads values and never calls anything."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from types import ModuleType
from typing import Any

_ABSENT = object()


@dataclass(frozen=True)
class GlobalUse:
    kernel: str
    name: str
    line: int  # in the kernel file
    is_function: bool = False

    def message(self, file: str) -> str:
        fix = (f"decorate {self.name} with @triton.jit" if self.is_function else
               f"define it as `{self.name} = tl.constexpr(...)` or pass it as an argument")
        return (f"NameError: kernel {self.kernel} reads the global {self.name}, which compiled "
                f"Triton refuses (the CPU interpreter does not); {fix} ({file}:{self.line})")


def non_constexpr_globals(module: ModuleType) -> list[GlobalUse]:
    uses: list[GlobalUse] = []
    for value in list(vars(module).values()):
        fn = _jit_python_function(value)
        if fn is None or fn.__module__ != module.__name__:
            continue
        try:
            lines, first = inspect.getsourcelines(fn)
            tree = ast.parse(textwrap.dedent("".join(lines)))
        except (OSError, TypeError, SyntaxError):
            continue
        func = next((n for n in tree.body if isinstance(n, (ast.FunctionDef,
                                                             ast.AsyncFunctionDef))), None)
        if func is None:
            continue
        for name, line in _free_loads(func):
            value = fn.__globals__.get(name, _ABSENT)
            if value is not _ABSENT and not _allowed(value):
                uses.append(GlobalUse(fn.__name__, name, first + line - 1, callable(value)))
    return sorted(set(uses), key=lambda u: (u.line, u.name))


def _jit_python_function(value: Any):
    """The Python function behind a @triton.jit object (through autotune/heuristics wrappers)."""
    from triton.runtime.jit import KernelInterface

    seen = 0
    while isinstance(value, KernelInterface) and seen < 8:
        value, seen = getattr(value, "fn", None), seen + 1
    return value if seen and inspect.isfunction(value) else None


def _free_loads(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, int]]:
    """Names the body reads but never binds; argument defaults and annotations are left out,
    as Triton evaluates those outside the kernel's body."""
    bound = {a.arg for a in func.args.args + func.args.kwonlyargs + func.args.posonlyargs}
    bound |= {a.arg for a in (func.args.vararg, func.args.kwarg) if a is not None}
    loads: list[tuple[str, int]] = []
    for stmt in func.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    loads.append((node.id, node.lineno))
                else:
                    bound.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
                bound |= _defined_names(node)
    return [(name, line) for name, line in loads if name not in bound]


def _defined_names(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    name = getattr(node, "name", None)  # a def or class
    return {name} if isinstance(name, str) else set()


def _allowed(value: Any) -> bool:
    """Triton's own rule (code_generator's global lookup), for values the worker can see."""
    import triton.language as tl
    from triton.runtime.jit import KernelInterface

    try:
        from triton.runtime.jit import JITCallable
    except ImportError:  # older Triton
        JITCallable = KernelInterface
    module = getattr(value, "__module__", "") or ""
    return (isinstance(value, (ModuleType, JITCallable, KernelInterface, tl.dtype, tl.constexpr))
            or getattr(value, "__triton_builtin__", False)
            or getattr(value, "__triton_aggregate__", False)
            or module.startswith(("triton.language", "triton.experimental.gluon.language"))
            or (isinstance(value, tuple) and hasattr(value, "_fields")))  # namedtuple
