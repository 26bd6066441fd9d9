"""Which host expressions hold tensors. There are no types to read, so evidence decides: a local
name is a tensor when it is bound to an allocation, a view, a tensor-method result or a helper
that returns a tensor, when the code uses it the way only tensors are used (x.shape,
x.stride(0), x.contiguous(), torch.empty_like(x) ...), or when it is passed where a tensor goes
(a kernel's pointer argument, a helper parameter that is a tensor). Facts flow both ways through
calls, so the whole file is solved as one fixpoint. Integers taken from shapes stay integers, so
`M * N` is glue while `x * 2` is compute; a parameter nobody treats as a tensor (eps, alpha)
stays a scalar."""

from __future__ import annotations

import libcst as cst

from kgb.anticheat.static import rules as R
from kgb.anticheat.static.context import Analysis
from kgb.anticheat.static.policy import (
    TENSOR_EVIDENCE_ATTRS,
    TENSOR_PRODUCING_METHODS,
    TL,
    TORCH_ALLOCATORS,
    TORCH_VIEWS,
    classify_attr,
    torch_allowed,
)
from kgb.anticheat.static.resolve import positional

_NOT_TENSOR_VALUES = frozenset({"q", "c", "i", "k", "s", "f"})
_POINTER_OPS = frozenset({"load", "store", "make_block_ptr", "make_tensor_descriptor"})
_MAX_ROUNDS = 8


class TensorFacts:
    def __init__(self, a: Analysis) -> None:
        self.a = a
        self._host = [f.id for f in a.model.funcs if f.id not in a.kernel_code]
        self._names: dict[int, set[str]] = {fid: set() for fid in self._host}
        self._returns: set[int] = set()
        self._holding: set[tuple[int | None, str]] = set()
        self._pointer_params = self._kernel_pointer_params()
        self._solve()

    # -- queries -------------------------------------------------------------------------------

    def is_tensor(self, node: cst.CSTNode | None, owner: int | None, scope: int) -> bool:
        if node is None:
            return False
        if isinstance(node, cst.Name):
            return owner is not None and node.value in self._names.get(owner, ())
        if isinstance(node, cst.Call):
            return self._call_is_tensor(node, scope)
        if isinstance(node, cst.Subscript):
            return self.is_tensor(node.value, owner, scope) or \
                self.holds_tensors(node.value, owner, scope)
        if isinstance(node, cst.Attribute):
            return node.attr.value in ("T", "mT", "data", "real", "imag") and \
                self.is_tensor(node.value, owner, scope)
        if isinstance(node, cst.BinaryOperation):
            return self.is_tensor(node.left, owner, scope) or \
                self.is_tensor(node.right, owner, scope)
        if isinstance(node, cst.UnaryOperation):
            return self.is_tensor(node.expression, owner, scope)
        if isinstance(node, cst.Comparison):  # x > 0 is a bool tensor
            return self.is_tensor(node.left, owner, scope) or any(
                self.is_tensor(c.comparator, owner, scope) for c in node.comparisons)
        if isinstance(node, cst.IfExp):
            return self.is_tensor(node.body, owner, scope) or \
                self.is_tensor(node.orelse, owner, scope)
        return False

    def holds_tensors(self, node: cst.CSTNode, owner: int | None, scope: int) -> bool:
        """`[y, z]`, `[t * 2 for t in ts]`, or a local name bound to one: indexing it gives a
        tensor (the container itself is not one: iterating over it is fine)."""
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return any(self.is_tensor(e.value, owner, scope) for e in node.elements)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return self.is_tensor(node.elt, owner, scope)
        key = (owner, node.value) if isinstance(node, cst.Name) else None
        if isinstance(node, cst.Name) and key is not None and owner is not None \
                and key not in self._holding:
            bindings = self.a.model.scopes[self.a.model.funcs[owner].scope].bindings
            self._holding.add(key)  # xs = [xs[0]] must not recurse forever
            try:
                return any(b.kind == "expr" and isinstance(b.node, (cst.List, cst.Tuple,
                                                                     cst.ListComp))
                           and self.holds_tensors(b.node, owner, b.scope)
                           for b in bindings.get(node.value, ()))
            finally:
                self._holding.discard(key)
        return False

    def _call_is_tensor(self, node: cst.Call, scope: int) -> bool:
        a = self.a
        values = a.resolve.expr(node.func, scope)
        for v in values:
            if v[0] == "q":
                q = v[1]
                if q in TORCH_ALLOCATORS or q in TORCH_VIEWS or (
                        q.startswith("torch.") and not torch_allowed(q)):
                    return True
            elif (v[0] == "f" and v[1] in self._returns) or (v[0] == "i" and any(
                    f in self._returns for f in a.methods(v[1])
                    if a.model.funcs[f].name == "__call__")):
                return True
        func = node.func
        if isinstance(func, cst.Attribute) and not any(v[0] == "q" for v in values):
            attr = func.attr.value
            if attr in TENSOR_PRODUCING_METHODS or classify_attr(attr, None) is R.TENSOR_COMPUTE:
                receiver = a.resolve.expr(func.value, scope)
                return not receiver or not all(v[0] in _NOT_TENSOR_VALUES for v in receiver)
        return False

    # -- solving -------------------------------------------------------------------------------

    def _solve(self) -> None:
        for fid in self._host:  # direct evidence, once
            self._names[fid] |= self._evidence(fid)
        for _ in range(_MAX_ROUNDS):
            changed = False
            for fid in self._host:
                before = len(self._names[fid])
                self._names[fid] |= self._bound(fid)
                self._names[fid] |= self._passed_as_tensor(fid)
                changed |= len(self._names[fid]) != before
                if fid not in self._returns and self._returns_tensor(fid):
                    self._returns.add(fid)
                    changed = True
            changed |= self._receive_from_callers()
            if not changed:
                break

    def _evidence(self, fid: int) -> set[str]:
        a = self.a
        scope = a.model.scopes[a.model.funcs[fid].scope]
        found: set[str] = set()
        for ref in a.by_owner["attrs"].get(fid, ()):
            base, attr = ref.node.value, ref.node.attr.value
            if isinstance(base, cst.Name) and base.value in scope.bindings and (
                    attr in TENSOR_EVIDENCE_ATTRS
                    or classify_attr(attr, None) is R.TENSOR_COMPUTE):
                found.add(base.value)
        for call in a.by_owner["calls"].get(fid, ()):
            first = positional(call.node, 0)
            if isinstance(first, cst.Name) and first.value in scope.bindings and any(
                    q.endswith("_like") for q in a.resolve.qnames(call.node.func, scope.id)):
                found.add(first.value)
        return found

    def _bound(self, fid: int) -> set[str]:
        scope = self.a.model.scopes[self.a.model.funcs[fid].scope]
        known = self._names[fid]
        return {name for name, bindings in scope.bindings.items() if name not in known and any(
            b.kind == "expr" and self.is_tensor(b.node, fid, b.scope) for b in bindings)}

    def _returns_tensor(self, fid: int) -> bool:
        func = self.a.model.funcs[fid]
        if isinstance(func.node, cst.Lambda):
            return self.is_tensor(func.node.body, fid, func.scope)
        return any(r.node.value is not None and self.is_tensor(r.node.value, fid, r.site.scope)
                   for r in self.a.by_owner["returns"].get(fid, ()))

    def _passed_as_tensor(self, fid: int) -> set[str]:
        """Local names handed to a kernel's pointer parameter or to a helper's tensor parameter."""
        a = self.a
        scope = a.model.scopes[a.model.funcs[fid].scope]
        found: set[str] = set()
        for launch in a.by_owner["launches"].get(fid, ()):
            for kid in a.funcs_of(a.resolve.expr(launch.target, launch.site.scope)) & a.jit:
                found |= self._args_for(launch.node, kid, self._pointer_params.get(kid, set()),
                                        scope.bindings)
        for call in a.by_owner["calls"].get(fid, ()):
            for callee in a.funcs_of(a.resolve.expr(call.node.func, call.site.scope)):
                if self._names.get(callee):
                    found |= self._args_for(call.node, callee, self._names[callee], scope.bindings)
        return found - self._names[fid]

    def _args_for(self, call: cst.Call, callee: int, params: set[str], local) -> set[str]:
        func = self.a.model.funcs[callee]
        shift = 1 if func.class_id is not None and isinstance(call.func, cst.Attribute) else 0
        found: set[str] = set()
        for i, arg in enumerate(_positional(call)):
            index = i + shift
            if index < len(func.params) and func.params[index] in params and \
                    isinstance(arg.value, cst.Name) and arg.value.value in local:
                found.add(arg.value.value)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in params and \
                    isinstance(arg.value, cst.Name) and arg.value.value in local:
                found.add(arg.value.value)
        return found

    def _receive_from_callers(self) -> bool:
        """A helper's parameter is a tensor when some caller passes it one."""
        a = self.a
        changed = False
        for call in a.model.calls:
            owner = call.site.owner
            for callee in a.funcs_of(a.resolve.expr(call.node.func, call.site.scope)):
                if callee not in self._names:
                    continue
                func = a.model.funcs[callee]
                shift = 1 if func.class_id is not None and isinstance(call.node.func,
                                                                      cst.Attribute) else 0
                pairs = [(i + shift, arg) for i, arg in enumerate(_positional(call.node))]
                named = [(func.params.index(x.keyword.value), x) for x in call.node.args
                         if x.keyword is not None and x.keyword.value in func.params]
                for index, arg in pairs + named:
                    if index >= len(func.params):
                        continue
                    param = func.params[index]
                    if param not in self._names[callee] and self.is_tensor(
                            arg.value, owner, call.site.scope):
                        self._names[callee].add(param)
                        changed = True
        return changed

    def _kernel_pointer_params(self) -> dict[int, set[str]]:
        """Kernel parameters used as the address of a load/store or block pointer: whatever the
        host passes there is a tensor."""
        a = self.a
        out: dict[int, set[str]] = {}
        for kid in a.jit:
            params = set(a.model.funcs[kid].params)
            found: set[str] = set()
            for call in a.by_owner["calls"].get(kid, ()):
                if not any((q.startswith(TL) and q.rsplit(".", 1)[1] in _POINTER_OPS)
                           or q.startswith(TL + "atomic_")
                           for q in a.resolve.qnames(call.node.func, call.site.scope)):
                    continue
                first = positional(call.node, 0)
                for arg in call.node.args:
                    if arg.keyword is not None and arg.keyword.value in ("pointer", "base"):
                        first = arg.value
                name = _base_pointer(first)
                if name in params:
                    found.add(name)
            out[kid] = found
        return out


def _positional(call: cst.Call) -> list[cst.Arg]:
    """The positional arguments whose parameter is known: those before the first `*args`
    (after it, positions depend on the unpacked sequence's length; `f(*ins, n, alpha)` does
    not hand `alpha` to the third parameter)."""
    out: list[cst.Arg] = []
    for arg in call.args:
        if arg.star:
            break
        if arg.keyword is None:
            out.append(arg)
    return out


def _base_pointer(node: cst.CSTNode | None) -> str | None:
    """The pointer in an address such as `x_ptr + row * stride + cols`: by convention the
    leftmost operand of the sum (offsets are added to it)."""
    while isinstance(node, (cst.BinaryOperation, cst.Subscript)):
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node.operator, (cst.Add, cst.Subtract)):
            node = node.left
        else:
            return None
    return node.value if isinstance(node, cst.Name) else None
