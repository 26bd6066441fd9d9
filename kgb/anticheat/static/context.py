"""The shared state of one analysis: the model, the resolver, the task's settings, which
functions are Triton kernels, and the Hit every rule returns."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from kgb.anticheat.registry import Rule
from kgb.anticheat.static.model import Func, Model
from kgb.anticheat.static.policy import TRITON_JIT
from kgb.anticheat.static.resolve import Resolver, positional

_CONSTRUCTORS = frozenset({"__init__", "__new__", "__post_init__", "__init_subclass__"})


def short(text: str, limit: int = 60) -> str:
    """Source text for a message: one line, at most `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


@dataclass(frozen=True)
class Hit:
    """A finding before it has a position (positions are computed only when there are hits)."""

    rule: Rule
    node: cst.CSTNode
    message: str


class Analysis:
    def __init__(self, model: Model, entry: str, forbid: tuple[str, ...],
                 category: str | None) -> None:
        self.model = model
        self.resolve = Resolver(model)
        self.entry = entry
        self.forbid = forbid
        self.category = category

    # -- kernels -------------------------------------------------------------------------------

    @cached_property
    def jit(self) -> frozenset[int]:
        """Functions Triton compiles: decorated with triton.jit (bare, called, or under
        autotune/heuristics, however it was imported) or wrapped by hand (`k = triton.jit(f)`)."""
        found: set[int] = set()
        for func in self.model.funcs:
            for deco in func.decorators:
                values = self.resolve.expr(deco, func.outer)
                if ("q", TRITON_JIT) in values or ("o", TRITON_JIT) in values:
                    found.add(func.id)
        for call in self.model.calls:
            values = self.resolve.expr(call.node.func, call.site.scope)
            if ("q", TRITON_JIT) in values or ("o", TRITON_JIT) in values:
                first = positional(call.node, 0)
                if first is not None:
                    found |= self.resolve.funcs(first, call.site.scope)
        return frozenset(found)

    @cached_property
    def launch_metadata_hooks(self) -> frozenset[int]:
        """Functions passed only as `launch_metadata=` to triton.jit (a profiler label hook):
        Triton calls them with (grid, kernel, args), `kernel` being its compiled-kernel object.
        One the file also calls itself gets no such trust."""
        hooks: set[int] = set()
        called: set[int] = set()
        for call in self.model.calls:
            called |= self.resolve.funcs(call.node.func, call.site.scope)
            values = self.resolve.expr(call.node.func, call.site.scope)
            if ("q", TRITON_JIT) in values or ("o", TRITON_JIT) in values:
                for arg in call.node.args:
                    if arg.keyword is not None and arg.keyword.value == "launch_metadata":
                        hooks |= self.resolve.funcs(arg.value, call.site.scope)
        return frozenset(hooks - called)

    def compiled_kernel_param(self, node: cst.CSTNode, owner: int | None) -> bool:
        """`node` is the `kernel` parameter of a launch_metadata hook."""
        if owner is None or owner not in self.launch_metadata_hooks or \
                not isinstance(node, cst.Name):
            return False
        params = self.model.funcs[owner].params
        return len(params) >= 2 and node.value == params[1]

    @cached_property
    def kernel_code(self) -> frozenset[int]:
        """Function ids whose body is Triton kernel language (a jit function or nested in one)."""
        out: set[int] = set()
        for func in self.model.funcs:
            f: Func | None = func
            while f is not None:
                if f.id in self.jit:
                    out.add(func.id)
                    break
                f = self.model.funcs[f.owner] if f.owner is not None else None
        return frozenset(out)

    def in_kernel(self, owner: int | None) -> bool:
        return owner is not None and owner in self.kernel_code

    def in_constructor(self, owner: int | None) -> bool:
        """`owner` is the __init__ of a class of this file (where modules build parameters)."""
        if owner is None:
            return False
        func = self.model.funcs[owner]
        return func.name == "__init__" and func.class_id is not None

    # -- indexes -------------------------------------------------------------------------------

    @cached_property
    def by_owner(self) -> dict[str, dict[int | None, list]]:
        """Sites grouped by the function that owns them: {"names": {owner: [...]}, ...}."""
        out: dict[str, dict[int | None, list]] = {}
        for kind in ("names", "attrs", "calls", "launches", "returns", "stores", "items",
                     "operators"):
            groups: dict[int | None, list] = defaultdict(list)
            for site in getattr(self.model, kind):
                groups[site.site.owner].append(site)
            out[kind] = groups
        return out

    @cached_property
    def members(self) -> dict[int, frozenset[str]]:
        """Attribute names each class of this file defines: class-body names and `self.x = ...`
        in its methods. Used to tell `self.sum()` (a method of the file) from tensor compute."""
        out: dict[int, set[str]] = {k.id: set(self.model.scopes[k.scope].bindings)
                                    for k in self.model.classes}
        for store in self.model.stores:
            owner = store.site.owner
            if store.kind == "attr" and owner is not None and isinstance(store.base, cst.Name):
                func = self.model.funcs[owner]
                if func.class_id is not None and func.params and \
                        store.base.value == func.params[0]:
                    out[func.class_id].add(cst.ensure_type(store.node, cst.Attribute).attr.value)
        return {k: frozenset(v) for k, v in out.items()}

    def self_class(self, node: cst.CSTNode, owner: int | None) -> int | None:
        """The class id when `node` is the `self` (first parameter) of a method of this file
        and must be an instance of it: not in a staticmethod (its first parameter is anything,
        e.g. autograd's ctx), not in a class whose plain methods are read through the class
        (`Cls.method(x)` passes any object as self)."""
        if owner is None or not isinstance(node, cst.Name):
            return None
        func = self.model.funcs[owner]
        if func.class_id is not None and func.params and node.value == func.params[0] and \
                func.id not in self.static_methods and func.class_id not in self.unbound_classes:
            return func.class_id
        return None

    @cached_property
    def static_methods(self) -> frozenset[int]:
        out = set()
        for func in self.model.funcs:
            for deco in func.decorators:
                if "builtins.staticmethod" in self.resolve.qnames(deco, func.outer):
                    out.add(func.id)
        return frozenset(out)

    @cached_property
    def unbound_classes(self) -> frozenset[int]:
        """Classes whose instance methods are read through the class object, so their `self`
        may be any object (the constructors' explicit super calls, Base.__init__(self), are
        the usual exception and are left alone)."""
        plain: dict[int, set[str]] = {}
        for func in self.model.funcs:
            if func.class_id is not None and func.id not in self.static_methods and \
                    func.name not in _CONSTRUCTORS:
                plain.setdefault(func.class_id, set()).add(func.name)
        out = set()
        for ref in self.model.attrs:
            for v in self.resolve.expr(ref.node.value, ref.site.scope):
                if v[0] == "c" and ref.node.attr.value in plain.get(v[1], ()):
                    out.add(v[1])
        return frozenset(out)

    def methods(self, class_id: int) -> list[int]:
        return [f.id for f in self.model.funcs if f.class_id == class_id]

    def funcs_of(self, values) -> set[int]:
        """Functions a set of resolved values may call: functions, results of factories (the
        factory runs), classes and instances (their methods)."""
        out: set[int] = set()
        for v in values:
            if v[0] in ("f", "r"):
                out.add(v[1])
            elif v[0] in ("c", "i"):
                out.update(self.methods(v[1]))
        return out
