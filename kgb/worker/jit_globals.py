"""A compile error the CPU interpreter hides: a @triton.jit function reading a plain global.

Compiled Triton lets a kernel read only globals that are constexpr (`X = tl.constexpr(1.0)`),
modules, other Triton functions, Triton builtins, dtypes and NamedTuple classes; anything else
(`EPS = 1e-6`, a plain Python function, a namedtuple instance) is refused at compile time. The
rule is the installed Triton's own code, never a copy (see `_allowed`). The interpreter runs
the body as Python and accepts it, so without this check such a kernel passes on the CPU and
fails on every GPU (seen on the H200 with a gelu kernel). Run in the candidate worker after
import, on the candidate's own module, only under the interpreter; it reads values and never
calls anything of the candidate's."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Callable
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
    undefined: bool = False  # not a global at all (a Python builtin, or a name the
    # interpreter puts into the kernel's module: np, math, inspect ...)
    refused: str = ""  # what Triton's dependency finder raised (`mod.helper`, a Python function)

    def message(self, file: str) -> str:
        if self.refused:
            return (f"{self.refused} in kernel {self.kernel}: compiled Triton refuses it (the "
                    f"CPU interpreter runs it as host Python); call only @triton.jit functions "
                    f"and triton.language from a kernel ({file}:{self.line})")
        if self.undefined:
            return (f"NameError: kernel {self.kernel} uses {self.name}, which compiled Triton "
                    f"does not define (the CPU interpreter runs it as Python); import or "
                    f"define it, or use a triton.language function ({file}:{self.line})")
        fix = (f"decorate {self.name} with @triton.jit" if self.is_function else
               f"define it as `{self.name} = tl.constexpr(...)` or pass it as an argument")
        return (f"NameError: kernel {self.kernel} reads the global {self.name}, which compiled "
                f"Triton refuses (the CPU interpreter does not); {fix} ({file}:{self.line})")


def non_constexpr_globals(module: ModuleType) -> list[GlobalUse]:
    uses: list[GlobalUse] = []
    for value in _module_values(module):
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
        scope = _capture_scope(fn)
        for name, line in _free_loads(func):
            value = scope.get(name, _ABSENT)
            if not _allowed(name, value):
                uses.append(GlobalUse(fn.__name__, name, first + line - 1, callable(value),
                                      value is _ABSENT))
        found = any(u.kernel == fn.__name__ for u in uses)  # the name rule says it better
        refused = None if found else _dependencies_refused(fn, tree,
                                                           textwrap.dedent("".join(lines)))
        if refused is not None:
            line, why = refused
            uses.append(GlobalUse(fn.__name__, "", first + line - 1, refused=why))
    return sorted(set(uses), key=lambda u: (u.line, u.name))


def _dependencies_refused(fn: Any, tree: ast.Module, src: str) -> tuple[int, str] | None:
    """What Triton's DependenciesFinder (the walk that keys its compile cache, before any
    code is generated) refuses in this kernel: a Python function reached through a module's
    attribute (`mod.helper(x)`) is "Unsupported function referenced" when compiled, while the
    interpreter calls it as host Python. Triton's own class decides; only a jit function seen
    as the interpreter builds it (an InterpretedFunction, a JITFunction when compiled) is
    taken as such. (line in `src`, the refusal), or None; None too where this Triton has no
    such finder (the name rule above still stands)."""
    try:
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import DependenciesFinder
    except ImportError:
        return None

    class Finder(DependenciesFinder):
        line = 1

        def visit(self, node):
            self.line = getattr(node, "lineno", self.line)
            return super().visit(node)

        def record_reference(self, val, var_dict=None, name=None):
            if isinstance(val, InterpretedFunction):
                return None
            return super().record_reference(val, None, name)  # no deep copy of its value

    nonlocals = {name: cell.cell_contents for name, cell in
                 zip(fn.__code__.co_freevars, fn.__closure__ or ()) if _filled(cell)}
    finder = Finder(fn.__name__, fn.__globals__, nonlocals, src)
    for node in tree.body:  # Triton parses from `def` on: decorators are host code
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.decorator_list = []
    try:
        finder.visit(tree)
    except (RuntimeError, TypeError) as exc:
        text = str(exc)
        if text.startswith(("Unsupported function referenced", "Simultaneous multiple")):
            text = re.sub(r" at 0x[0-9a-fA-F]+>", ">", text)  # no address in a verdict
            return finder.line, f"{type(exc).__name__}: {text[:160]}"
        return None
    except Exception:  # anything else is not a refusal Triton names
        return None
    return None


def _filled(cell: Any) -> bool:
    try:
        return cell.cell_contents is not _ABSENT
    except ValueError:  # an empty cell: the name is not bound yet
        return False


def _capture_scope(fn: Any) -> dict[str, Any]:
    """What compiled Triton looks names up in (JITCallable.get_capture_scope): the function's
    globals and its closure's cells."""
    scope = dict(fn.__globals__)
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # an empty cell: the name is not bound yet
            continue
    return scope


def _module_values(module: ModuleType) -> list[Any]:
    """The module's globals and the attributes of the classes it defines: jit helpers kept in
    a class used as a namespace (FlagGems' NamedTuple `tle`) are kernels too."""
    values = list(vars(module).values())
    for value in list(values):
        if isinstance(value, type) and value.__module__ == module.__name__:
            values.extend(vars(value).values())
    return values


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


def _allowed(name: str, value: Any) -> bool:
    """Whether compiled Triton lets a kernel read `value` as the global `name`: the installed
    Triton's own global lookup (CodeGenerator._define_name_lookup) decides, run on a stand-in
    for its code generator, so the rule cannot drift from a copy of it (it did: a copy accepted
    namedtuple instances, which Triton refuses, and refused the NamedTuple classes FlagGems
    uses as namespaces, which Triton accepts). Where this Triton's lookup cannot be found or
    fails, the global is refused (fail closed: the test suite pins the lookup's shape).
    `value` _ABSENT: the name is no global; only Triton's builtin namespace (range, len, min
    ...) can then define it."""
    lookup = _triton_global_lookup({} if value is _ABSENT else {name: _as_compiled(value)})
    if lookup is None:
        return False
    try:
        lookup(name)
    except Exception:  # NameError is the refusal; anything else is not an acceptance either
        return False
    return True


def _triton_global_lookup(gscope: dict[str, Any]) -> Callable[[str], Any] | None:
    try:
        from triton.compiler.code_generator import CodeGenerator
    except ImportError:
        return None
    define: Any = getattr(CodeGenerator, "_define_name_lookup", None)
    is_constexpr_global: Any = getattr(CodeGenerator, "_is_constexpr_global", None)
    builtins = getattr(CodeGenerator, "builtin_namespace", None)
    if not (callable(define) and callable(is_constexpr_global) and isinstance(builtins, dict)):
        return None

    class _Scope:  # the attributes the lookup reads from its code generator, and no others
        def __init__(self) -> None:
            self.gscope, self.builtin_namespace = gscope, builtins
            self.lscope: dict[str, Any] = {}
            self.visiting_arg_default_value = False  # a kernel's body, not a default

        def _is_constexpr_global(self, name: str) -> bool:
            return bool(is_constexpr_global(self, name))

    try:
        lookup = define(_Scope())
    except Exception:
        return None
    return lookup if callable(lookup) else None


def _as_compiled(value: Any) -> Any:
    """What `value` is when Triton compiles: under the interpreter @triton.jit builds an
    InterpretedFunction where the compiler gets a JITFunction (an empty one stands in: the
    lookup only asks its type)."""
    try:
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction
    except ImportError:
        return value
    if isinstance(value, InterpretedFunction):
        return object.__new__(JITFunction)
    return value
