"""Alias resolution: what a name or expression in the kernel file may refer to.

`import torch as T`, `from torch import matmul as mm`, `from torch.nn import functional as F`,
`f = torch.matmul`, `k = _kernel`, `getattr(torch, "mat" + "mul")`, default arguments, class
attributes, `functools.partial(...)` and decorator wrappers all resolve to the same values as the
plain spelling. Values are small tuples (cheap, hashable):

    ("q", "torch.matmul")   a module or an object reached through an import or a builtin
    ("f", func_id)          a function or lambda of this file
    ("c", class_id)         a class of this file;  ("i", class_id): an instance of one
    ("r", func_id)          what calling a function of this file returned
    ("o", "torch.empty")    what calling an imported object returned
    ("p", func_id, name)    a parameter (its value comes from the caller)
    ("k", node, scope)      a container built by a display, comprehension or dict()/list()/...
    ("s",)                  a literal or plain data;   ("u",): unknown
"""

from __future__ import annotations

import builtins
from typing import Any

import libcst as cst

from kgb.anticheat.static.model import Binding, Model
from kgb.anticheat.static.policy import CONTAINER_FACTORIES, PASSTHROUGH_CALLS, TRITON_WRAPPERS

Value = tuple[Any, ...]  # (kind, ...): heterogeneous by design
UNKNOWN: frozenset = frozenset({("u",)})
BUILTIN_NAMES = frozenset(dir(builtins))
_DISPLAYS = (cst.Dict, cst.List, cst.Tuple, cst.Set)
_CONTAINERS = _DISPLAYS + (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer,
             cst.Float, cst.Imaginary, cst.Ellipsis)


def fold_string(node: cst.CSTNode | None) -> tuple[str, bool] | None:
    """The value of a string built only from literals, and whether it had to be built."""
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:
            return None
        return (value, False) if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left, right = fold_string(node.left), fold_string(node.right)
        return (left[0] + right[0], True) if left and right else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        left, right = fold_string(node.left), fold_string(node.right)
        return (left[0] + right[0], True) if left and right else None
    if isinstance(node, cst.FormattedString):
        texts = [p for p in node.parts if isinstance(p, cst.FormattedStringText)]
        if len(texts) == len(node.parts):
            return "".join(p.value for p in texts), True
    return None


def positional(call: cst.Call, index: int) -> cst.BaseExpression | None:
    args = [a for a in call.args if a.keyword is None and not a.star]
    return args[index].value if index < len(args) else None


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    return None


class Resolver:
    def __init__(self, model: Model) -> None:
        self.model = model
        self._expr_memo: dict[tuple[int, int], frozenset] = {}
        self._binding_memo: dict[int, frozenset] = {}
        self._name_memo: dict[tuple[str, int], frozenset] = {}
        self._expr_active: set[tuple[int, int]] = set()
        self._active: set[int] = set()
        self._star_modules = sorted({i.module for i in model.imports
                                     if i.member == "*" and not i.relative and i.module})

    # -- names ---------------------------------------------------------------------------------

    def lookup(self, name: str, scope_id: int) -> list[Binding] | None:
        """The bindings a name refers to from `scope_id` (Python's LEGB, class scopes visible
        only to their own body); None for a builtin or an unbound name."""
        scopes = self.model.scopes
        scope = scopes[scope_id]
        if name in scope.globals:
            scope = scopes[0]
        elif name in scope.nonlocals and scope.parent is not None:
            scope = scopes[scope.parent]
        first = True
        while True:
            if (first or scope.kind != "class") and name in scope.bindings:
                return scope.bindings[name]
            first = False
            if scope.parent is None:
                return None
            scope = scopes[scope.parent]

    def name(self, name: str, scope_id: int) -> frozenset:
        key = (name, scope_id)
        cached = self._name_memo.get(key)
        if cached is not None:
            return cached
        bindings = self.lookup(name, scope_id)
        if bindings is None:
            # `from torch import *` may be where a free name comes from (S180 flags the import
            # itself; resolving through it still lets S110 name the function).
            found = {("q", f"{m}.{name}") for m in self._star_modules}
            if name in BUILTIN_NAMES:
                found.add(("q", f"builtins.{name}"))
            out = frozenset(found) if found else UNKNOWN
        else:
            values: set = set()
            for b in bindings:
                values |= self.binding(b)
            out = frozenset(values)
            if any(id(b) in self._active for b in bindings):
                return out  # part of a cycle still being resolved: do not freeze a partial answer
        self._name_memo[key] = out
        return out

    def binding(self, b: Binding) -> frozenset:
        key = id(b)
        if key in self._binding_memo:
            return self._binding_memo[key]
        if key in self._active:  # x = x.contiguous(): the cycle adds nothing new
            return UNKNOWN
        self._active.add(key)
        out: frozenset[Value]
        try:
            if b.kind == "import":
                out = frozenset({("q", b.qname)})
            elif b.kind == "func":
                out = frozenset({("f", b.ref)})
            elif b.kind == "class":
                out = frozenset({("c", b.ref)})
            elif b.kind == "param":
                default = self.expr(b.node, b.scope) if b.node is not None else frozenset()
                out = frozenset({("p", b.ref, b.qname)} | default)
            elif b.kind == "expr" and b.node is not None:
                out = self.expr(b.node, b.scope)
            else:
                out = UNKNOWN
        finally:
            self._active.discard(key)
        self._binding_memo[key] = out
        return out

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, node: cst.CSTNode | None, scope: int) -> frozenset:
        if node is None:
            return UNKNOWN
        key = (id(node), scope)
        cached = self._expr_memo.get(key)
        if cached is not None:
            return cached
        if key in self._expr_active:  # d = {"k": d["k"]}: a cycle through containers
            return UNKNOWN
        self._expr_active.add(key)
        try:
            cached = self._expr_memo[key] = frozenset(self._expr(node, scope))
        finally:
            self._expr_active.discard(key)
        return cached

    def _expr(self, node: cst.CSTNode, scope: int) -> set:
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return {("s",)}
            return set(self.name(node.value, scope))
        if isinstance(node, cst.Attribute):
            return self.attribute(self.expr(node.value, scope), node.attr.value)
        if isinstance(node, cst.Call):
            return self._call(node, scope)
        if isinstance(node, cst.Subscript):
            out: set = set()
            for v in self.expr(node.value, scope):
                if v[0] == "k" and isinstance(v[1], _DISPLAYS):
                    for element in v[1].elements:
                        value = element.value
                        out |= self.expr(value, v[2])
                else:
                    out.add(("u",))
            return out or {("u",)}
        if isinstance(node, cst.IfExp):
            return set(self.expr(node.body, scope) | self.expr(node.orelse, scope))
        if isinstance(node, cst.BooleanOperation):
            return set(self.expr(node.left, scope) | self.expr(node.right, scope))
        if isinstance(node, cst.NamedExpr):
            return set(self.expr(node.value, scope))
        if isinstance(node, cst.Lambda):
            fid = self.model.func_by_node.get(id(node))
            return {("f", fid)} if fid is not None else {("u",)}
        if isinstance(node, _CONTAINERS):
            return {("k", node, scope)}
        if isinstance(node, _LITERALS):
            return {("s",)}
        return {("u",)}

    def attribute(self, base: frozenset, attr: str) -> set:
        out: set = set()
        for v in base:
            kind = v[0]
            if kind == "q":
                out.add(("q", f"{v[1]}.{attr}"))
            elif kind == "f" and attr == "warmup":
                out.add(("w", v[1]))  # kernel.warmup(...) returns the compiled kernel
            elif kind in ("c", "i"):
                klass = self.model.classes[v[1]]
                members = self.model.scopes[klass.scope].bindings.get(attr)
                if members:
                    for b in members:
                        out |= self.binding(b)
                else:
                    out.add(("u",))
            else:
                out.add(("u",))
        return out or {("u",)}

    def _call(self, node: cst.Call, scope: int) -> set:
        first = positional(node, 0)
        out: set = set()
        for v in self.expr(node.func, scope):
            kind = v[0]
            if kind == "q":
                q = v[1]
                if q in PASSTHROUGH_CALLS or q in TRITON_WRAPPERS:
                    # a decorator applied by hand (triton.jit(fn), partial(fn, ...)) is still fn
                    out |= self.expr(first, scope) if first is not None else {("o", q)}
                elif q == "builtins.getattr":
                    name = fold_string(positional(node, 1))
                    out |= self.attribute(self.expr(first, scope), name[0]) if name else {("u",)}
                elif q in CONTAINER_FACTORIES:
                    out.add(("k", node, scope))
                else:
                    out.add(("o", q))
            elif kind == "o" and (v[1] in PASSTHROUGH_CALLS or v[1] in TRITON_WRAPPERS):
                out |= self.expr(first, scope) if first is not None else {("u",)}
            elif kind == "c":
                out.add(("i", v[1]))
            elif kind == "f":
                out.add(("r", v[1]))
            elif kind == "w":
                out.add(("f", v[1]))  # compiled[grid](...) launches the kernel it came from
            else:
                out.add(("u",))
        return out or {("u",)}

    # -- conveniences --------------------------------------------------------------------------

    def qnames(self, node: cst.CSTNode, scope: int) -> set[str]:
        return {v[1] for v in self.expr(node, scope) if v[0] == "q"}

    def funcs(self, node: cst.CSTNode, scope: int) -> set[int]:
        return {v[1] for v in self.expr(node, scope) if v[0] == "f"}
