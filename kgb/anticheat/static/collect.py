"""One walk over the libcst tree that fills a Model.

The walk is hand-written rather than a libcst CSTVisitor: it has to know which expressions are
loads and which are assignment targets, it carries the scope, the enclosing function and the
dead-code flag down, and it is about ten times faster than libcst's generic visitor (lint speed
matters: a submission is linted before any GPU time is spent)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import libcst as cst

from kgb.anticheat.static.model import (
    AttrRef,
    Binding,
    CallSite,
    Func,
    ImportSite,
    ItemRef,
    Klass,
    Launch,
    LoopSite,
    Marker,
    Model,
    NameRef,
    Operator,
    ReturnSite,
    Scope,
    Site,
    Store,
)

# Fields that only hold whitespace, punctuation or tokens the analysis never needs.
_SKIP = frozenset({
    "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators", "header",
    "footer", "newline", "trailing_whitespace", "empty_lines", "equal", "colon", "operator",
    "asynchronous", "dot", "relative", "lbracket", "rbracket", "lbrace", "rbrace", "walrus",
    "arrow", "star", "whitespace", "default_indent", "default_newline", "encoding", "indent",
    "has_trailing_newline", "first_line"})
_CONSTANT_NAMES = {"True": True, "False": False, "None": False}


def collect(module: cst.Module) -> Model:
    walker = _Walker(module)
    walker.run()
    return walker.model


def dotted(node: cst.CSTNode | None) -> str:
    """`a.b.c` for a Name/Attribute chain, "" for anything else."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return ""
    parts.append(node.value)
    return ".".join(reversed(parts))


def constant_truth(node: cst.BaseExpression) -> bool | None:
    if isinstance(node, cst.Name) and node.value in _CONSTANT_NAMES:
        return _CONSTANT_NAMES[node.value]
    if isinstance(node, cst.Integer):
        return node.evaluated_value != 0
    return None


def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind)
                 if f.name not in _SKIP and not f.name.startswith("whitespace"))


# Facts about libcst's node classes, computed once at import (constants, not caches).
_NODE_CLASSES = [c for c in vars(cst).values() if isinstance(c, type)
                 and issubclass(c, cst.CSTNode) and dataclasses.is_dataclass(c)]
_FIELDS: dict[type, tuple[str, ...]] = {c: _field_names(c) for c in _NODE_CLASSES}
_NODE_TYPES: frozenset[type] = frozenset(_NODE_CLASSES)


def _fields(node: cst.CSTNode) -> tuple[str, ...]:
    names = _FIELDS.get(type(node))
    return names if names is not None else _field_names(type(node))


def _is_node(kind: type) -> bool:
    # libcst node classes use ABCMeta, whose isinstance() is slow: look the type up instead
    return kind in _NODE_TYPES or (kind is not str and issubclass(kind, cst.CSTNode))


def _is_main_guard(test: cst.BaseExpression) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 or \
            not isinstance(test.comparisons[0].operator, cst.Equal):
        return False
    sides = (test.left, test.comparisons[0].comparator)
    return any(isinstance(a, cst.Name) and a.value == "__name__" for a in sides) and any(
        isinstance(b, cst.SimpleString) and b.evaluated_value == "__main__" for b in sides)


def _terminates(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, (cst.Return, cst.Raise, cst.Continue, cst.Break)) for s in stmt.body)


class _Walker:
    def __init__(self, module: cst.Module) -> None:
        self.model = Model(module=module)
        self.model.scopes.append(Scope(id=0, kind="module", parent=None, ref=None))
        self._main_blocks: list[tuple[cst.If, Site]] = []
        self._handlers: dict[type, Callable[..., None]] = {
            cst.Module: self._module, cst.IndentedBlock: self._block,
            cst.SimpleStatementSuite: self._block, cst.FunctionDef: self._def,
            cst.Lambda: self._lambda, cst.ClassDef: self._class, cst.Assign: self._assign,
            cst.AnnAssign: self._annassign, cst.AugAssign: self._augassign, cst.Del: self._del,
            cst.For: self._for, cst.With: self._with, cst.ExceptHandler: self._except,
            cst.ExceptStarHandler: self._except, cst.Global: self._global,
            cst.Nonlocal: self._global, cst.Return: self._return, cst.Import: self._import,
            cst.ImportFrom: self._import_from, cst.If: self._if, cst.While: self._while,
            cst.Name: self._name, cst.Attribute: self._attribute, cst.Call: self._call,
            cst.Subscript: self._subscript, cst.BinaryOperation: self._operator,
            cst.UnaryOperation: self._operator, cst.Comparison: self._operator,
            cst.NamedExpr: self._named, cst.CompFor: self._compfor, cst.Arg: self._arg,
            cst.Await: self._await,
        }

    def run(self) -> None:
        self.walk(self.model.module, Site(scope=0, owner=None, dead=False))
        # `if __name__ == "__main__":` never runs when the worker imports the kernel, so test
        # code there is not judged -- unless the file rebinds __name__ to make it run.
        if any("__name__" in scope.bindings for scope in self.model.scopes):
            for node, site in self._main_blocks:
                self.model.markers.append(Marker(node, "rebinds-name", site))
                self.walk(node.body, site)

    # -- dispatch ------------------------------------------------------------------------------

    def walk(self, node: cst.CSTNode | None, site: Site) -> None:
        if node is None:
            return
        handler = self._handlers.get(type(node))
        if handler is not None:
            handler(node, site)
        else:
            self._children(node, site)

    def _children(self, node: cst.CSTNode, site: Site) -> None:
        for name in _fields(node):
            value = getattr(node, name)
            kind = type(value)
            if kind is tuple or kind is list:
                for item in value:
                    if _is_node(type(item)):
                        self.walk(item, site)
            elif _is_node(kind):
                self.walk(value, site)

    def _scope(self, site: Site) -> Scope:
        return self.model.scopes[site.scope]

    def _bind(self, site: Site, name: str, binding: Binding) -> None:
        """Bind where Python would: a `global`/`nonlocal` name lives in an outer scope."""
        scope = self._scope(site)
        if name in scope.globals:
            scope = self.model.scopes[0]
        elif name in scope.nonlocals:
            parent = scope.parent
            while parent is not None and self.model.scopes[parent].kind != "function":
                parent = self.model.scopes[parent].parent
            scope = self.model.scopes[parent if parent is not None else 0]
        scope.bind(name, binding)

    def _new_scope(self, kind: str, parent: int, ref: int) -> Scope:
        scope = Scope(id=len(self.model.scopes), kind=kind, parent=parent, ref=ref)
        self.model.scopes.append(scope)
        return scope

    # -- statements ----------------------------------------------------------------------------

    def _body(self, stmts, site: Site) -> None:
        dead = site
        for stmt in stmts:
            self.walk(stmt, dead)
            if not dead.dead and _terminates(stmt):
                dead = dataclasses.replace(site, dead=True)

    def _module(self, node: cst.Module, site: Site) -> None:
        self._body(node.body, site)

    def _block(self, node, site: Site) -> None:
        self._body(node.body, site)

    def _if(self, node: cst.If, site: Site) -> None:
        if _is_main_guard(node.test):
            self._main_blocks.append((node, site))
            self.walk(node.orelse, site)
            return
        self.walk(node.test, site)
        truth = constant_truth(node.test)
        self.walk(node.body, dataclasses.replace(site, dead=True) if truth is False else site)
        if node.orelse is not None:
            self.walk(node.orelse, dataclasses.replace(site, dead=True) if truth is True else site)

    def _while(self, node: cst.While, site: Site) -> None:
        self.walk(node.test, site)
        truth = constant_truth(node.test)
        self.walk(node.body, dataclasses.replace(site, dead=True) if truth is False else site)
        self.walk(node.orelse, site)

    def _params(self, params: cst.Parameters) -> list[cst.Param]:
        out = list(params.posonly_params) + list(params.params)
        if isinstance(params.star_arg, cst.Param):
            out.append(params.star_arg)
        out += list(params.kwonly_params)
        if params.star_kwarg is not None:
            out.append(params.star_kwarg)
        return out

    def _function(self, node, name: str, decorators, site: Site, is_async: bool) -> Func:
        params = self._params(node.params)
        for p in params:  # defaults and annotations run where the function is defined
            self.walk(p.default, site)
            if p.annotation is not None:
                self.walk(p.annotation.annotation, site)
        outer = self._scope(site)
        fid = len(self.model.funcs)
        scope = self._new_scope("function", outer.id, fid)
        func = Func(id=fid, name=name, node=node, scope=scope.id, outer=outer.id,
                    owner=site.owner, class_id=outer.ref if outer.kind == "class" else None,
                    params=tuple(p.name.value for p in
                                 list(node.params.posonly_params) + list(node.params.params)),
                    decorators=tuple(decorators), is_async=is_async)
        self.model.funcs.append(func)
        self.model.func_by_node[id(node)] = fid
        for p in params:
            scope.bind(p.name.value, Binding("param", outer.id, p.default, qname=p.name.value,
                                             ref=fid))
        return func

    def _def(self, node: cst.FunctionDef, site: Site) -> None:
        decorators = [d.decorator for d in node.decorators]
        for d in decorators:
            self.walk(d, site)
        if node.returns is not None:
            self.walk(node.returns.annotation, site)
        func = self._function(node, node.name.value, decorators, site,
                              node.asynchronous is not None)
        self._bind(site, node.name.value, Binding("func", site.scope, node, ref=func.id))
        if func.is_async:
            self.model.markers.append(Marker(node, "async", site))
        if site.scope == 0 and node.name.value in ("__getattr__", "__dir__"):
            self.model.markers.append(Marker(node, "module-getattr", site))
        self.walk(node.body, Site(func.scope, func.id, site.dead))

    def _lambda(self, node: cst.Lambda, site: Site) -> None:
        func = self._function(node, "<lambda>", (), site, False)
        self.walk(node.body, Site(func.scope, func.id, site.dead))

    def _class(self, node: cst.ClassDef, site: Site) -> None:
        for d in node.decorators:
            self.walk(d.decorator, site)
        for arg in list(node.bases) + list(node.keywords):
            self.walk(arg.value, site)
        outer = self._scope(site)
        cid = len(self.model.classes)
        scope = self._new_scope("class", outer.id, cid)
        self.model.classes.append(Klass(id=cid, name=node.name.value, node=node, scope=scope.id,
                                        outer=outer.id, owner=site.owner,
                                        bases=tuple(a.value for a in node.bases)))
        outer.bind(node.name.value, Binding("class", outer.id, node, ref=cid))
        self.walk(node.body, Site(scope.id, site.owner, site.dead))

    def _assign(self, node: cst.Assign, site: Site) -> None:
        self.walk(node.value, site)
        for target in node.targets:
            self._target(target.target, node.value, site)

    def _annassign(self, node: cst.AnnAssign, site: Site) -> None:
        self.walk(node.annotation.annotation, site)
        self.walk(node.value, site)
        self._target(node.target, node.value, site)

    def _augassign(self, node: cst.AugAssign, site: Site) -> None:
        self.walk(node.value, site)
        self.model.operators.append(Operator(node, site))
        target = node.target
        if isinstance(target, cst.Name):
            self._name(target, site)  # `x += y` reads x too
            self._bind(site, target.value, Binding("other", site.scope, node))
        else:
            self._store(target, "aug", site, node.value)

    def _del(self, node: cst.Del, site: Site) -> None:
        targets = [e.value for e in node.target.elements] \
            if isinstance(node.target, (cst.Tuple, cst.List)) else [node.target]
        for target in targets:
            if isinstance(target, (cst.Attribute, cst.Subscript)):
                self._store(target, "del", site)

    def _store(self, target, op: str, site: Site,
               value: cst.BaseExpression | None = None) -> None:
        kind = "attr" if isinstance(target, cst.Attribute) else "item"
        self.model.stores.append(Store(target, kind, op, target.value, site, value))
        self.walk(target.value, site)
        if isinstance(target, cst.Subscript):
            for element in target.slice:
                self.walk(element, site)

    def _target(self, target, value: cst.BaseExpression | None, site: Site) -> None:
        if isinstance(target, cst.Name):
            kind = "expr" if value is not None else "other"
            self._bind(site, target.value, Binding(kind, site.scope, value))
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = None
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(
                    target.elements) and not any(isinstance(e, cst.StarredElement)
                                                 for e in value.elements):
                values = [e.value for e in value.elements]
            for i, element in enumerate(target.elements):
                inner = element.value
                self._target(inner, values[i] if values else None, site)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value, None, site)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            self._store(target, "set", site, value)

    def _for(self, node: cst.For, site: Site) -> None:
        self.model.loops.append(LoopSite(node.iter, site))
        self.walk(node.iter, site)
        self._target(node.target, None, site)
        if node.asynchronous is not None:
            self.model.markers.append(Marker(node, "async", site))
        self.walk(node.body, site)
        self.walk(node.orelse, site)

    def _with(self, node: cst.With, site: Site) -> None:
        for item in node.items:
            self.walk(item.item, site)
            if item.asname is not None:
                self._target(item.asname.name, None, site)
        if node.asynchronous is not None:
            self.model.markers.append(Marker(node, "async", site))
        self.walk(node.body, site)

    def _except(self, node, site: Site) -> None:
        self.walk(node.type, site)
        if node.name is not None:
            self._target(node.name.name, None, site)
        self.walk(node.body, site)

    def _global(self, node, site: Site) -> None:
        scope = self._scope(site)
        names = {item.name.value for item in node.names}
        is_global = isinstance(node, cst.Global)
        (scope.globals if is_global else scope.nonlocals).update(names)
        self.model.markers.append(Marker(node, "global" if is_global else "nonlocal", site))

    def _return(self, node: cst.Return, site: Site) -> None:
        self.model.returns.append(ReturnSite(node, site))
        self.walk(node.value, site)

    def _import(self, node: cst.Import, site: Site) -> None:
        scope = self._scope(site)
        for alias in node.names:
            module = dotted(alias.name)
            if alias.asname is not None:
                bound = cst.ensure_type(alias.asname.name, cst.Name).value
                scope.bind(bound, Binding("import", site.scope, node, qname=module))
            else:
                top = module.split(".")[0]
                scope.bind(top, Binding("import", site.scope, node, qname=top))
            self.model.imports.append(ImportSite(node, module, None, False, site))

    def _import_from(self, node: cst.ImportFrom, site: Site) -> None:
        scope = self._scope(site)
        relative = len(node.relative) > 0
        module = dotted(node.module) if node.module is not None else ""
        if isinstance(node.names, cst.ImportStar):
            self.model.imports.append(ImportSite(node, module, "*", relative, site))
            return
        for alias in node.names:
            member = dotted(alias.name)
            bound = (cst.ensure_type(alias.asname.name, cst.Name).value
                     if alias.asname is not None else member)
            if relative:
                scope.bind(bound, Binding("other", site.scope, node))
            else:
                scope.bind(bound, Binding("import", site.scope, node, qname=f"{module}.{member}"))
            self.model.imports.append(ImportSite(node, module, member, relative, site))

    # -- expressions ---------------------------------------------------------------------------

    def _name(self, node: cst.Name, site: Site) -> None:
        if node.value not in _CONSTANT_NAMES:
            self.model.names.append(NameRef(node, site))

    def _attribute(self, node: cst.Attribute, site: Site, leaf: bool = True) -> None:
        self.model.attrs.append(AttrRef(node, leaf, site))
        if isinstance(node.value, cst.Attribute):
            self._attribute(node.value, site, leaf=False)
        else:
            self.walk(node.value, site)

    def _call(self, node: cst.Call, site: Site) -> None:
        self.model.calls.append(CallSite(node, site))
        if isinstance(node.func, cst.Subscript):
            self.model.launches.append(Launch(node, node.func.value, site))
        self.walk(node.func, site)
        for arg in node.args:
            self.walk(arg.value, site)

    def _arg(self, node: cst.Arg, site: Site) -> None:
        self.walk(node.value, site)

    def _subscript(self, node: cst.Subscript, site: Site) -> None:
        self.model.items.append(ItemRef(node, site))
        self.walk(node.value, site)
        for element in node.slice:
            self.walk(element, site)

    def _operator(self, node, site: Site) -> None:
        self.model.operators.append(Operator(node, site))
        self._children(node, site)

    def _named(self, node: cst.NamedExpr, site: Site) -> None:
        self.walk(node.value, site)
        self._target(node.target, node.value, site)

    def _compfor(self, node: cst.CompFor, site: Site) -> None:
        # Comprehension variables are bound in the enclosing scope: a simplification that can
        # only add values to a name, never hide one.
        self.model.loops.append(LoopSite(node.iter, site))
        self.walk(node.iter, site)
        self._target(node.target, None, site)
        for cond in node.ifs:
            self.walk(cond.test, site)
        self.walk(node.inner_for_in, site)
        if node.asynchronous is not None:
            self.model.markers.append(Marker(node, "async", site))

    def _await(self, node: cst.Await, site: Site) -> None:
        self.model.markers.append(Marker(node, "await", site))
        self.walk(node.expression, site)
