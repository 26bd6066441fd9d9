"""S140 monkeypatching, S150 state that outlives a call, S160 tensor subclasses.

Writes are judged by what they write into: a module or imported object (patching: S140), a
Triton kernel object (S140), the result of a call the file does not construct (S140 for an
attribute, S150 for an item), module/class-level objects or a factory's closure written from a
function (a cache or a call counter: S150), objects the file did not create (S150). Objects the
file builds inside the call, `self` in __init__ and module-level setup code are fine.

A cache of launch configurations keyed by shape, dtype or device is what real libraries write
and is honest (design.md, layer 1): an item written into outer state passes when neither its
key nor its value holds a tensor, a pointer or a value read off a tensor, and the write does
not read the container it writes (a counter). Where this cannot tell, the anti-caching calls of
layer 2 decide."""

from __future__ import annotations

import libcst as cst

from kgb.anticheat.static import rules as R
from kgb.anticheat.static.context import Analysis, Hit, short
from kgb.anticheat.static.model import Site
from kgb.anticheat.static.policy import (
    CONTAINER_FACTORIES,
    MEMOIZERS,
    MUTATING_METHODS,
    TORCH_ALLOCATORS,
)
from kgb.anticheat.static.reachability import reachable
from kgb.anticheat.static.resolve import fold_string, positional
from kgb.anticheat.static.tensors import TensorFacts

INIT_METHODS = frozenset({"__init__", "__post_init__", "__new__", "__init_subclass__",
                          "__set_name__", "__enter__"})
SUBCLASS_BASES = frozenset({
    "torch.Tensor", "torch._C.TensorBase", "torch._C._TensorBase", "torch.nn.Parameter",
    "torch.nn.parameter.Parameter", "torch.nn.Buffer", "torch.nn.parameter.Buffer",
    "torch.nn.parameter.UninitializedParameter", "torch.nn.parameter.UninitializedBuffer",
    "torch.overrides.TorchFunctionMode", "torch.utils._python_dispatch.TorchDispatchMode"})
_MUTABLE_DISPLAYS = (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)


def check(a: Analysis, tensors: TensorFacts) -> list[Hit]:
    hits: list[Hit] = []
    code = a.model.module.code_for_node
    persistent = _persistent_factories(a)

    for store in a.model.stores:
        if store.kind == "item" and store.op == "set" and _plain_cache_entry(
                a, tensors, store.base, (store.node, store.value), store.site):
            continue
        _judge_write(a, hits, store.node, store.kind, store.base, store.site, persistent)
    for call in a.model.calls:
        node, site = call.node, call.site
        qnames = a.resolve.qnames(node.func, site.scope)
        if qnames & {"builtins.setattr", "builtins.delattr"}:
            target, name = positional(node, 0), fold_string(positional(node, 1))
            if target is not None and name is not None:  # computed names are S131 already
                _judge_write(a, hits, node, "attr", target, site, persistent)
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in MUTATING_METHODS and \
                site.owner is not None:
            if func.attr.value in _CACHE_METHODS and _plain_cache_entry(
                    a, tensors, func.value, tuple(arg.value for arg in node.args), site):
                continue
            why = _outer_state(a, func.value, site, persistent)
            if why:
                hits.append(Hit(R.MUTABLE_STATE, node,
                                f"`{short(code(node))}` mutates {why} from inside a function"))
        if site.owner is None and qnames & TORCH_ALLOCATORS:
            hits.append(Hit(R.MUTABLE_STATE, node,
                            f"`{short(code(node))}` allocates a module-level tensor that "
                            f"outlives every call"))

    for marker in a.model.markers:
        if marker.what in ("global", "nonlocal"):
            hits.append(Hit(R.MUTABLE_STATE, marker.node,
                            f"`{short(code(marker.node))}` lets a function rebind state that "
                            f"outlives the call"))
    _mutable_defaults(a, hits)
    _memoized_work(a, hits)
    _subclasses(a, hits)
    return hits


def _judge_write(a: Analysis, hits: list[Hit], node: cst.CSTNode, kind: str,
                 base: cst.BaseExpression, site: Site, persistent: set[int]) -> None:
    def text() -> str:  # source text only for a hit: printing code is not free
        return short(a.model.module.code_for_node(node))

    root = _root(base)
    if isinstance(root, cst.Call) and not _fresh(a, root, site):
        if kind == "attr":
            hits.append(Hit(R.MONKEYPATCH, node, f"`{text()}` modifies the result of a call, an "
                                                 f"object this file did not create"))
        elif site.owner is not None:
            hits.append(Hit(R.MUTABLE_STATE, node, f"`{text()}` writes into the result of a "
                                                   f"call from inside a function (state that "
                                                   f"can outlive the call)"))
        return
    values = a.resolve.expr(base, site.scope)
    imported = sorted(v[1] for v in values if v[0] == "q")
    if imported:
        hits.append(Hit(R.MONKEYPATCH, node,
                        f"`{text()}` modifies {imported[0]}, which this file did not define"))
        return
    funcs = {v[1] for v in values if v[0] == "f"}
    if funcs & a.jit:
        hits.append(Hit(R.MONKEYPATCH, node, f"`{text()}` modifies a Triton kernel object"))
        return
    if funcs and kind == "attr":
        hits.append(Hit(R.MUTABLE_STATE, node,
                        f"`{text()}` stores state on a function object"))
        return
    if site.owner is None:
        return  # module-level setup code runs once, at import
    why = _outer_state(a, base, site, persistent)
    if why:
        hits.append(Hit(R.MUTABLE_STATE, node, f"`{text()}` writes {why} from inside a function"))
        return
    if a.self_class(base, site.owner) is not None:
        return  # `self.x = ...` in __init__: building the object is what __init__ is for
    if kind == "attr" and _autograd_ctx(a, base, site.owner):
        return  # ctx.saved = ...: autograd's per-call context object
    if kind == "attr" and isinstance(base, cst.Name):
        local_objects = {"i", "k", "c"}
        if values and all(v[0] in local_objects for v in values):
            return  # an object of this file's own classes, built here
        hits.append(Hit(R.MUTABLE_STATE, node,
                        f"`{text()}` writes an attribute on `{base.value}`, an object this file "
                        f"did not create (state that can outlive the call)"))


AUTOGRAD_FUNCTION = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})


def _autograd_ctx(a: Analysis, base: cst.BaseExpression, owner: int | None) -> bool:
    """Is `base` the ctx of a torch.autograd.Function's forward/backward/setup_context?"""
    if owner is None or not isinstance(base, cst.Name):
        return False
    func = a.model.funcs[owner]
    if func.class_id is None or not func.params or base.value != func.params[0] or \
            func.id not in a.static_methods:
        return False
    klass = a.model.classes[func.class_id]
    return any(a.resolve.qnames(b, klass.outer) & AUTOGRAD_FUNCTION for b in klass.bases)


def _root(node: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node


def _fresh(a: Analysis, call: cst.Call, site: Site) -> bool:
    """Does the call build a new object (a class of this file, a container, an allocation)?"""
    values = a.resolve.expr(call, site.scope)
    return bool(values) and all(
        v[0] in ("i", "k") or (v[0] == "o" and (v[1] in CONTAINER_FACTORIES or
                                                 v[1] in TORCH_ALLOCATORS)) for v in values)


# Reads that turn a tensor's address or values into a Python value: a key built from them
# replays answers by pointer or by sampled values (threats 8, 29).
_POINTER_OR_VALUE_READS = frozenset({"data_ptr", "item", "tolist", "untyped_storage", "storage",
                                     "numpy", "__array__", "__dlpack__", "storage_offset"})
_CACHE_METHODS = frozenset({"setdefault", "update", "__setitem__"})


def _plain_cache_entry(a: Analysis, tensors: TensorFacts, container: cst.BaseExpression,
                       parts: tuple, site: Site) -> bool:
    """True for a launch-configuration cache entry: the pieces written (key, value, method
    arguments) hold no tensor, no pointer and no value read off a tensor, and do not read the
    container being written (which would make it a counter)."""
    root = _root(container)
    root_name = root.value if isinstance(root, cst.Name) else None
    for part in parts:
        if part is None:
            return False
        for node in _walk(part):
            if tensors.is_tensor(node, site.owner, site.scope) or \
                    tensors.holds_tensors(node, site.owner, site.scope):
                return False
            if isinstance(node, cst.Attribute) and node.attr.value in _POINTER_OR_VALUE_READS:
                return False
            if isinstance(node, cst.Call) and a.resolve.qnames(node.func, site.scope) & {
                    "builtins.id", "builtins.hash"}:
                return False
            if root_name is not None and isinstance(node, cst.Name) and node.value == root_name \
                    and node is not root:
                return False
    return True


def _walk(node: cst.CSTNode):
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        todo.extend(current.children)


def _outer_state(a: Analysis, base: cst.BaseExpression, site: Site,
                 persistent: set[int]) -> str:
    """Why writing into `base` from inside a function touches state that survives the call,
    or "" when it does not."""
    root = base
    chain: list[str] = []
    while isinstance(root, (cst.Attribute, cst.Subscript)):
        if isinstance(root, cst.Attribute):
            chain.append(root.attr.value)
        root = root.value
    if not isinstance(root, cst.Name) or site.owner is None:
        return ""
    func = a.model.funcs[site.owner]
    klass = a.self_class(root, site.owner)
    if klass is not None:
        if func.name in INIT_METHODS and isinstance(func.node, cst.FunctionDef):
            return ""
        return f"`{root.value}.{'.'.join(reversed(chain))}` (object state)" if chain else \
            f"`{root.value}` (object state)"
    holder = _holder(a, root.value, site.scope)
    if holder is None or holder.id == site.scope:
        return ""
    if holder.kind == "module":
        values = a.resolve.name(root.value, site.scope)
        if values and all(v[0] in ("q",) for v in values):
            return ""  # imported objects are S140's business
        return f"module-level `{root.value}`"
    if holder.kind == "class":
        return f"class-level `{root.value}`"
    if holder.ref in persistent:
        return f"`{root.value}` captured from `{a.model.funcs[holder.ref].name}`, which runs " \
               f"once at import"
    return ""


def _holder(a: Analysis, name: str, scope_id: int):
    scopes = a.model.scopes
    scope = scopes[scope_id]
    if name in scope.globals:
        return scopes[0]
    first = True
    while True:
        if (first or scope.kind != "class") and name in scope.bindings:
            return scope
        first = False
        if scope.parent is None:
            return None
        scope = scopes[scope.parent]


def _persistent_factories(a: Analysis) -> set[int]:
    """Functions called by module-level code (factories, decorators): their locals live on in
    the closures they return, so a nested function writing into them keeps state."""
    out: set[int] = set()
    for call in a.by_owner["calls"].get(None, ()):
        out |= a.funcs_of(a.resolve.expr(call.node.func, call.site.scope))
    for func in a.model.funcs:
        if func.owner is None:
            for deco in func.decorators:
                out |= a.funcs_of(a.resolve.expr(deco, func.outer))
    return out


def _mutable_defaults(a: Analysis, hits: list[Hit]) -> None:
    for func in a.model.funcs:
        for name, bindings in a.model.scopes[func.scope].bindings.items():
            for b in bindings:
                if b.kind != "param" or b.node is None:
                    continue
                mutable = isinstance(b.node, _MUTABLE_DISPLAYS) or (
                    isinstance(b.node, cst.Call)
                    and a.resolve.qnames(b.node.func, b.scope) & CONTAINER_FACTORIES)
                if mutable:
                    hits.append(Hit(R.MUTABLE_STATE, b.node,
                                    f"parameter `{name}` of `{func.name}` has a mutable default, "
                                    f"shared by every call"))


def _memoized_work(a: Analysis, hits: list[Hit]) -> None:
    """functools.cache/lru_cache on a function that allocates or launches (directly or through
    what it calls) replays old outputs for equal arguments; caching a helper that only computes
    a device property is fine."""
    working = set(a.by_owner["launches"]) - {None}
    for call in a.model.calls:
        if call.site.owner is not None and a.resolve.qnames(call.node.func,
                                                            call.site.scope) & TORCH_ALLOCATORS:
            working.add(call.site.owner)
    memoized: list[tuple[int, cst.CSTNode]] = []
    for func in a.model.funcs:
        for deco in func.decorators:
            values = a.resolve.expr(deco, func.outer)
            if any(v[0] in ("q", "o") and v[1] in MEMOIZERS for v in values):
                memoized.append((func.id, deco))
    for call in a.model.calls:
        values = a.resolve.expr(call.node.func, call.site.scope)
        first = positional(call.node, 0)
        if first is not None and any(v[0] in ("q", "o") and v[1] in MEMOIZERS for v in values):
            for fid in a.funcs_of(a.resolve.expr(first, call.site.scope)):
                memoized.append((fid, call.node))
    for fid, node in memoized:
        if reachable(a, {fid}) & working:
            hits.append(Hit(R.MUTABLE_STATE, node,
                            f"`{a.model.funcs[fid].name}` is memoized but allocates or launches: "
                            f"a cache would replay old outputs"))


def _subclasses(a: Analysis, hits: list[Hit]) -> None:
    for klass in a.model.classes:
        for base in klass.bases:
            found = a.resolve.qnames(base, klass.outer) & SUBCLASS_BASES
            if found:
                hits.append(Hit(R.TENSOR_SUBCLASS, klass.node,
                                f"class `{klass.name}` subclasses {sorted(found)[0]}"))
    for func in a.model.funcs:
        if func.name in ("__torch_function__", "__torch_dispatch__"):
            hits.append(Hit(R.TENSOR_SUBCLASS, func.node,
                            f"`{func.name}` intercepts PyTorch calls on tensors"))

