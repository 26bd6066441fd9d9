"""What one pass over a kernel file learns: scopes and their bindings, functions and classes,
and the sites the rules look at (references, calls, launches, stores, operators ...).

Everything is flow-insensitive on purpose: a name bound twice has both values, so a cheat cannot
hide a PyTorch call behind a rebinding the analysis did not follow."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst


@dataclass(frozen=True, slots=True)
class Site:
    scope: int  # scope the code runs in
    owner: int | None  # innermost def/lambda id; None for module and class-body code
    dead: bool  # under `if False:`, after a return/raise: never runs, so never launches


@dataclass(frozen=True, slots=True)
class Binding:
    kind: str  # import | func | class | expr | param | other
    scope: int  # where `node` is evaluated (expr: the value; param: the default)
    node: cst.CSTNode | None = None
    qname: str = ""  # import: the dotted name bound; param: the parameter's name
    ref: int = -1  # func/class id, or the function of a param


@dataclass(slots=True)
class Scope:
    """Built incrementally by the collector, read-only afterwards."""

    id: int
    kind: str  # module | class | function
    parent: int | None
    ref: int | None  # function or class id
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


@dataclass(frozen=True, slots=True)
class Func:
    id: int
    name: str  # "<lambda>" for lambdas
    node: cst.FunctionDef | cst.Lambda
    scope: int  # its own scope
    outer: int  # the scope it is defined in
    owner: int | None  # enclosing function
    class_id: int | None  # set for methods
    params: tuple[str, ...]  # positional-or-keyword names in order (self included)
    decorators: tuple[cst.BaseExpression, ...]
    is_async: bool


@dataclass(frozen=True, slots=True)
class Klass:
    id: int
    name: str
    node: cst.ClassDef
    scope: int
    outer: int
    owner: int | None
    bases: tuple[cst.BaseExpression, ...]


@dataclass(frozen=True, slots=True)
class NameRef:
    node: cst.Name
    site: Site


@dataclass(frozen=True, slots=True)
class AttrRef:
    node: cst.Attribute
    leaf: bool  # outermost attribute of a dotted chain (`torch.cuda.Event`, not `torch.cuda`)
    site: Site


@dataclass(frozen=True, slots=True)
class CallSite:
    node: cst.Call
    site: Site


@dataclass(frozen=True, slots=True)
class Launch:
    node: cst.Call  # kernel[grid](...)
    target: cst.BaseExpression  # `kernel`
    site: Site


@dataclass(frozen=True, slots=True)
class Store:
    node: cst.CSTNode  # the target: an Attribute or a Subscript
    kind: str  # attr | item
    op: str  # set | del | aug
    base: cst.BaseExpression  # what is written into
    site: Site
    value: cst.BaseExpression | None = None  # what is written (None: del, unpacking, for)


@dataclass(frozen=True, slots=True)
class Operator:
    node: cst.CSTNode  # BinaryOperation, UnaryOperation, Comparison or AugAssign
    site: Site


@dataclass(frozen=True, slots=True)
class ItemRef:
    node: cst.Subscript  # a load x[...]
    site: Site


@dataclass(frozen=True, slots=True)
class LoopSite:
    node: cst.BaseExpression  # what a for loop or comprehension iterates over
    site: Site


@dataclass(frozen=True, slots=True)
class ReturnSite:
    node: cst.Return
    site: Site


@dataclass(frozen=True, slots=True)
class ImportSite:
    node: cst.CSTNode
    module: str  # dotted module ("" for a relative import without a name)
    member: str | None  # from-import member, "*" for star
    relative: bool
    site: Site


@dataclass(frozen=True, slots=True)
class Marker:
    """A construct that is a finding wherever it appears: global, nonlocal, async, ..."""

    node: cst.CSTNode
    what: str  # global | nonlocal | async | await | module-getattr | rebinds-name
    site: Site


@dataclass
class Model:
    module: cst.Module
    scopes: list[Scope] = field(default_factory=list)
    funcs: list[Func] = field(default_factory=list)
    classes: list[Klass] = field(default_factory=list)
    func_by_node: dict[int, int] = field(default_factory=dict)  # id(def/lambda node) -> func id
    names: list[NameRef] = field(default_factory=list)
    attrs: list[AttrRef] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)
    stores: list[Store] = field(default_factory=list)
    operators: list[Operator] = field(default_factory=list)
    items: list[ItemRef] = field(default_factory=list)
    loops: list[LoopSite] = field(default_factory=list)
    returns: list[ReturnSite] = field(default_factory=list)
    imports: list[ImportSite] = field(default_factory=list)
    markers: list[Marker] = field(default_factory=list)
