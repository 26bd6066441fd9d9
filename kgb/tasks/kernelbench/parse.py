"""Reading one KernelBench problem file without running it: `class Model(nn.Module)`,
`get_inputs()`, `get_init_inputs()` and the module-level constants they use.

The file is parsed (ast), never imported here: what it may run is decided later, by the probe
in a child process. Every problem a file can have is a ProblemError with one line that names
the file and says what to change."""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgb.errors import BadInput, quoted

MAX_BYTES = 1_000_000
# Names the generated inputs.py defines itself: a constant of the problem may not take them.
RESERVED = frozenset({"torch", "math", "gen", "shape", "dtype", "mode", "make_inputs",
                      "init_inputs", "build_model", "build_module", "maybe_outliers",
                      "MODEL_SEED", "get_inputs", "get_init_inputs"})
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow,
           ast.Mod: operator.mod}


class ProblemError(BadInput):
    """A problem file kgb cannot turn into a task; the message names the file and the fix."""


@dataclass(frozen=True)
class Constant:
    name: str
    value: Any  # int, float, bool, str, None or a tuple/list of those
    expr: str  # the right-hand side as written (derived constants are recomputed from it)
    deps: frozenset[str]  # constants it is computed from
    node: ast.expr


@dataclass(frozen=True)
class Problem:
    path: Path
    source: str
    constants: tuple[Constant, ...]  # in file order
    get_inputs: ast.FunctionDef
    get_init_inputs: ast.FunctionDef
    init_params: str  # Model.__init__'s parameters after self, as written
    forward_params: str  # Model.forward's parameters after self
    torch_imports: tuple[str, ...]  # `import torch...` / `import math` lines, re-used by inputs.py
    pinned_names: frozenset[str]  # constants read by Model, get_init_inputs or other code

    def constant(self, name: str) -> Constant | None:
        return next((c for c in self.constants if c.name == name), None)


def parse_problem(path: Path) -> Problem:
    def fail(what: str) -> ProblemError:
        return ProblemError(f"{quoted(path.name)}: {what}")

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise fail(f"cannot be read ({exc.strerror}); check the path") from None
    if len(data) > MAX_BYTES:
        raise fail(f"{len(data)} bytes; a problem file is at most {MAX_BYTES}")
    try:
        source = data.decode("utf-8")
        tree = ast.parse(source, filename=path.name)
    except UnicodeDecodeError:
        raise fail("is not UTF-8 text; save it as UTF-8") from None
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        line = getattr(exc, "lineno", None)
        raise fail(f"is not valid Python{f' (line {line})' if line else ''}: "
                   f"{getattr(exc, 'msg', exc)}; fix the syntax") from None

    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    model = classes.get("Model")
    if model is None:
        raise fail("defines no `class Model(nn.Module)` at module level; a KernelBench problem "
                   "needs one")
    missing = [n for n in ("get_inputs", "get_init_inputs") if n not in funcs]
    if missing:
        raise fail(f"defines no {' and no '.join(f'{n}()' for n in missing)} at module level; "
                   f"add {'them' if len(missing) > 1 else 'it'} (KernelBench's problem format)")
    methods = {n.name: n for n in model.body if isinstance(n, ast.FunctionDef)}
    if "forward" not in methods:
        raise fail("its Model has no forward() method; define forward(self, *inputs)")
    for name in ("get_inputs", "get_init_inputs"):
        if funcs[name].args.args or funcs[name].args.vararg or funcs[name].args.kwonlyargs:
            raise fail(f"{name}() takes arguments; KernelBench calls it with none")

    constants = _constants(tree, fail)
    names = {c.name for c in constants}
    clash = sorted(names & RESERVED)
    if clash:
        raise fail(f"module-level name {clash[0]!r} clashes with a name kgb's generated "
                   f"inputs.py defines; rename it")
    pinned: set[str] = set()
    for node in tree.body:
        if node is funcs["get_inputs"] or (isinstance(node, ast.Assign) and _is_constant(
                node, names)):
            continue
        pinned |= _loaded_names(node) & names
    return Problem(path=path, source=source, constants=tuple(constants),
                   get_inputs=funcs["get_inputs"], get_init_inputs=funcs["get_init_inputs"],
                   init_params=_params(methods.get("__init__")),
                   forward_params=_params(methods["forward"]),
                   torch_imports=_torch_imports(tree), pinned_names=_closure(pinned, constants))


def _constants(tree: ast.Module, fail) -> list[Constant]:
    """`NAME = expr` at module level where expr is arithmetic over literals and earlier
    constants (KernelBench's `batch_size = 16`, `dim = 16384`, `features = dim * 2`)."""
    found: list[Constant] = []
    values: dict[str, Any] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        try:
            value = _evaluate(node.value, values)
        except _NotConstant:
            values.pop(name, None)
            found = [c for c in found if c.name != name]
            continue
        deps = frozenset(_loaded_names(node.value) & set(values))
        values[name] = value
        found = [c for c in found if c.name != name]
        found.append(Constant(name, value, ast.unparse(node.value), deps, node.value))
    return found


def _is_constant(node: ast.Assign, names: set[str]) -> bool:
    return len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
        node.targets[0].id in names


class _NotConstant(Exception):
    pass


def _evaluate(node: ast.expr, values: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(
            node.value, (int, float, str, bool))):
        return node.value
    if isinstance(node, ast.Name) and node.id in values:
        return values[node.id]
    if isinstance(node, (ast.Tuple, ast.List)):
        items = tuple(_evaluate(e, values) for e in node.elts)
        return items if isinstance(node, ast.Tuple) else list(items)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _evaluate(node.operand, values)
        if isinstance(value, (int, float)):
            return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _evaluate(node.left, values), _evaluate(node.right, values)
        if isinstance(left, (int, float)) and isinstance(right, (int, float)):
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise _NotConstant
            try:
                return _BINOPS[type(node.op)](left, right)
            except (ArithmeticError, ValueError):
                raise _NotConstant from None
    raise _NotConstant


def _loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _closure(names: set[str], constants: list[Constant]) -> frozenset[str]:
    """`names` plus every constant they are computed from."""
    by_name = {c.name: c for c in constants}
    todo, seen = list(names), set(names)
    while todo:
        c = by_name.get(todo.pop())
        for dep in (c.deps if c else ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return frozenset(seen)


def _params(func: ast.FunctionDef | None) -> str:
    if func is None:
        return ""
    args = func.args
    text = ast.unparse(args)
    first = args.posonlyargs[0] if args.posonlyargs else (args.args[0] if args.args else None)
    if first is not None and first.arg == "self":
        text = text.split(",", 1)[1].strip() if "," in text else ""
    return text


def _torch_imports(tree: ast.Module) -> tuple[str, ...]:
    lines = []
    for node in tree.body:
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
        if names and all(n.split(".")[0] in ("torch", "math") for n in names):
            lines.append(ast.unparse(node))
    return tuple(lines)
