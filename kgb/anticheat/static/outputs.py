"""S151 and S152: what the entry does with its own arguments. Writing into an input (so a later
reference agrees) and handing an input back as the output are visible in the entry's code."""

from __future__ import annotations

import libcst as cst

from kgb.anticheat.static import rules as R
from kgb.anticheat.static.context import Analysis, Hit, short
from kgb.anticheat.static.policy import ALIASING_ATTRS, ALIASING_METHODS, TORCH_VIEWS
from kgb.anticheat.static.tensors import TensorFacts


def check(a: Analysis, tensors: TensorFacts, roots: set[int]) -> list[Hit]:
    hits: list[Hit] = []
    code = a.model.module.code_for_node
    for fid in sorted(roots):
        func = a.model.funcs[fid]
        params = set(func.params)
        if func.class_id is not None and func.params:
            params.discard(func.params[0])  # self
        if not params:
            continue

        def is_param(node, site, params=params, fid=fid) -> str | None:
            if isinstance(node, cst.Name) and node.value in params and any(
                    v[0] == "p" and v[1] == fid
                    for v in a.resolve.name(node.value, site.scope)):
                return node.value
            return None

        for store in a.by_owner["stores"].get(fid, ()):
            name = is_param(store.base, store.site)
            if store.kind == "item" and name:
                hits.append(Hit(R.INPUT_MUTATION, store.node,
                                f"`{short(code(store.node))}` writes into argument `{name}`"))
        for call in a.by_owner["calls"].get(fid, ()):
            func_node = call.node.func
            if isinstance(func_node, cst.Attribute):
                method = func_node.attr.value
                name = is_param(func_node.value, call.site)
                if name and method.endswith("_") and not method.startswith("__"):
                    hits.append(Hit(R.INPUT_MUTATION, call.node,
                                    f"`{short(code(call.node))}` changes argument `{name}` in "
                                    f"place"))
            for arg in call.node.args:
                if arg.keyword is not None and arg.keyword.value == "out":
                    name = is_param(arg.value, call.site)
                    if name:
                        hits.append(Hit(R.INPUT_MUTATION, call.node,
                                        f"`out={name}` writes the result into an argument"))
        for op in a.by_owner["operators"].get(fid, ()):
            node = op.node
            if isinstance(node, cst.AugAssign):
                name = is_param(node.target, op.site)
                if name and tensors.is_tensor(node.target, fid, op.site.scope):
                    hits.append(Hit(R.INPUT_MUTATION, node,
                                    f"`{short(code(node))}` updates argument `{name}` in place"))
        _returns_input(a, hits, fid, params)
    return hits


def _returns_input(a: Analysis, hits: list[Hit], fid: int, params: set[str]) -> None:
    func = a.model.funcs[fid]
    scope = a.model.scopes[func.scope]
    # Names that can only hold an argument or a view of one: start from every candidate and drop
    # those with any other binding until nothing changes (x = x.contiguous() stays an alias).
    aliases = {name for name in scope.bindings if name in params or any(
        b.kind == "expr" for b in scope.bindings[name])}
    changed = True
    while changed:
        changed = False
        for name in list(aliases):
            for b in scope.bindings[name]:
                ok = (b.kind == "param" and name in params) or (
                    b.kind == "expr" and _is_alias(a, b.node, aliases, b.scope))
                if not ok:
                    aliases.discard(name)
                    changed = True
                    break
    code = a.model.module.code_for_node
    if isinstance(func.node, cst.Lambda):
        values = [(func.node.body, func.node.body)]
    else:
        values = [(r.node, r.node.value) for r in a.by_owner["returns"].get(fid, ())
                  if r.node.value is not None and not r.site.dead]
    for node, value in values:
        parts = value.elements if isinstance(value, (cst.Tuple, cst.List)) else [value]
        for part in parts:
            expr = part.value if isinstance(part, (cst.Element, cst.StarredElement)) else part
            if _is_alias(a, expr, aliases, func.scope):
                hits.append(Hit(R.RETURNS_INPUT, node,
                                f"`{short(code(node))}` hands back an argument (or a view of "
                                f"one) as the output"))
                break


def _is_alias(a: Analysis, node, aliases: set[str], scope: int) -> bool:
    if isinstance(node, cst.Name):
        return node.value in aliases
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ALIASING_METHODS:
            return _is_alias(a, func.value, aliases, scope)
        if a.resolve.qnames(func, scope) & TORCH_VIEWS and node.args:
            return _is_alias(a, node.args[0].value, aliases, scope)
        return False
    if isinstance(node, cst.Attribute):
        return node.attr.value in ALIASING_ATTRS and _is_alias(a, node.value, aliases, scope)
    if isinstance(node, cst.Subscript):
        return _is_alias(a, node.value, aliases, scope)
    if isinstance(node, cst.IfExp):
        return _is_alias(a, node.body, aliases, scope) or _is_alias(a, node.orelse, aliases,
                                                                    scope)
    return False

