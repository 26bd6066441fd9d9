"""S101-S105: the entry exists, it reaches a kernel[grid](...) launch, and the launched kernels
read and write memory. A decoy kernel that is defined but never launched, launched only in dead
code, or launched but never storing, does not satisfy these rules."""

from __future__ import annotations

import libcst as cst

from kgb.anticheat.static import rules as R
from kgb.anticheat.static.context import Analysis, Hit
from kgb.anticheat.static.policy import (
    DESCRIPTOR_METHODS_LOAD,
    DESCRIPTOR_METHODS_STORE,
    KERNEL_LOAD_NAMES,
    KERNEL_RANDOM_NAMES,
    KERNEL_STORE_NAMES,
    TL,
)
from kgb.anticheat.static.resolve import keyword, positional


def check(a: Analysis) -> list[Hit]:
    hits: list[Hit] = []
    roots = entry_roots(a, hits)
    if not a.jit:
        hits.append(Hit(R.NO_TRITON_KERNEL, a.model.module,
                        "no @triton.jit function is defined in the file"))
    if roots is None or not a.jit:
        return hits
    reach = reachable(a, roots)
    launched = launched_kernels(a, reach)
    if not launched:
        names = ", ".join(sorted(a.model.funcs[f].name for f in a.jit)) or "none"
        where = _entry_node(a)
        hits.append(Hit(R.KERNEL_NOT_LAUNCHED, where,
                        f"no @triton.jit kernel is launched with kernel[grid](...) on a path "
                        f"reachable from `{a.entry}` (kernels in the file: {names})"))
        return hits
    reads = False
    for kid in sorted(launched):
        loads, stores = memory_ops(a, kernel_closure(a, kid))
        reads = reads or loads
        if not stores:
            kernel = a.model.funcs[kid]
            hits.append(Hit(R.KERNEL_NEVER_STORES, kernel.node,
                            f"kernel `{kernel.name}` is launched but never writes memory (no "
                            f"tl.store, atomic or descriptor store in it or its helpers)"))
    if not reads:
        hits.append(Hit(R.KERNEL_NEVER_LOADS, _entry_node(a),
                        "no launched kernel reads memory (tl.load, atomics, descriptor loads) or "
                        "draws random numbers: its output cannot depend on the inputs"))
    return hits


def _entry_node(a: Analysis) -> cst.CSTNode:
    for b in a.model.scopes[0].bindings.get(a.entry, ()):
        if b.node is not None:
            return b.node
    return a.model.module


def entry_functions(a: Analysis, hits: list[Hit]) -> set[int] | None:
    """Functions of this file the entry name leads to: a def, a lambda, a class's methods, or
    what an alias, functools.partial or factory call resolves to. None (and an S101 hit) when
    there is none."""
    bindings = a.model.scopes[0].bindings.get(a.entry)
    if not bindings:
        hits.append(Hit(R.ENTRY_MISSING, a.model.module,
                        f"the entry function `{a.entry}` is not defined at module level"))
        return None
    values: set = set()
    for b in bindings:
        values |= a.resolve.binding(b)
    funcs = a.funcs_of(values)
    if not funcs:
        what = ", ".join(sorted(v[1] for v in values if v[0] == "q")) or "a value of unknown origin"
        hits.append(Hit(R.ENTRY_MISSING, bindings[0].node or a.model.module,
                        f"the entry `{a.entry}` is {what}, not a function defined in this file"))
        return None
    return funcs


def entry_roots(a: Analysis, hits: list[Hit]) -> set[int] | None:
    """Functions the harness may run first: the entry functions plus the decorators wrapped
    around them (a decorator's wrapper is what actually gets called)."""
    funcs = entry_functions(a, hits)
    if funcs is None:
        return None
    roots = set(funcs)
    for fid in funcs:
        func = a.model.funcs[fid]
        for deco in func.decorators:
            roots |= a.funcs_of(a.resolve.expr(deco, func.outer))
    return roots


def reachable(a: Analysis, roots: set[int]) -> set[int]:
    """Functions that may run during a call of the entry. Any live reference to a function of the
    file counts (it may be called, passed on or stored), and a method name reached through any
    receiver counts for every class that defines it: over-approximating keeps decoys out."""
    method_names: dict[str, set[int]] = {}
    for f in a.model.funcs:
        if f.class_id is not None:
            method_names.setdefault(f.name, set()).add(f.id)
    lambdas_of: dict[int | None, list[int]] = {}
    for f in a.model.funcs:
        if isinstance(f.node, cst.Lambda):
            lambdas_of.setdefault(f.owner, []).append(f.id)
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        fid = todo.pop()
        if fid in seen:
            continue
        seen.add(fid)
        found: set[int] = set(lambdas_of.get(fid, ()))
        for ref in a.by_owner["names"].get(fid, ()):
            if not ref.site.dead:
                found |= a.funcs_of(a.resolve.name(ref.node.value, ref.site.scope))
        for ref in a.by_owner["attrs"].get(fid, ()):
            if not ref.site.dead:
                found |= a.funcs_of(a.resolve.expr(ref.node, ref.site.scope))
                found |= method_names.get(ref.node.attr.value, set())
        todo.extend(found - seen)
    return seen


def launched_kernels(a: Analysis, reach: set[int]) -> set[int]:
    """Jit functions launched as kernel[grid](...) from live code of reachable functions,
    including kernels handed to a launching helper as an argument."""
    out: set[int] = set()
    for fid in reach:
        for launch in a.by_owner["launches"].get(fid, ()):
            if launch.site.dead:
                continue
            values = a.resolve.expr(launch.target, launch.site.scope)
            out |= a.funcs_of(values) & a.jit
            for v in values:
                if v[0] == "p":
                    out |= _passed_in(a, reach, v[1], v[2]) & a.jit
    return out


def _passed_in(a: Analysis, reach: set[int], fid: int, param: str) -> set[int]:
    func = a.model.funcs[fid]
    if param not in func.params:
        return set()
    index = func.params.index(param)
    found: set[int] = set()
    for caller in reach:
        for call in a.by_owner["calls"].get(caller, ()):
            if call.site.dead or fid not in a.funcs_of(
                    a.resolve.expr(call.node.func, call.site.scope)):
                continue
            bound = isinstance(call.node.func, cst.Attribute) and func.class_id is not None
            arg = keyword(call.node, param)
            if arg is None:
                arg = positional(call.node, index - (1 if bound else 0))
            if arg is not None:
                found |= a.funcs_of(a.resolve.expr(arg, call.site.scope))
    return found


def kernel_closure(a: Analysis, kid: int) -> set[int]:
    """A kernel plus the @triton.jit helpers it calls, transitively."""
    seen: set[int] = set()
    todo = [kid]
    while todo:
        fid = todo.pop()
        if fid in seen:
            continue
        seen.add(fid)
        for ref in a.by_owner["names"].get(fid, ()):
            todo.extend(a.funcs_of(a.resolve.name(ref.node.value, ref.site.scope)) & a.jit)
        for ref in a.by_owner["attrs"].get(fid, ()):
            todo.extend(a.funcs_of(a.resolve.expr(ref.node, ref.site.scope)) & a.jit)
    return seen


def memory_ops(a: Analysis, funcs: set[int]) -> tuple[bool, bool]:
    """(reads, writes) over kernel bodies: tl.load/tl.store and friends, atomics (both),
    random number generation (a read of its own), descriptor .load()/.store() methods."""
    reads = writes = False
    for fid in funcs:
        for call in a.by_owner["calls"].get(fid, ()):
            func = call.node.func
            qnames = a.resolve.qnames(func, call.site.scope)
            for q in qnames:
                if not q.startswith(TL):
                    continue
                last = q.rsplit(".", 1)[1]
                if last in KERNEL_STORE_NAMES:
                    writes = True
                elif last.startswith("atomic_"):
                    reads = writes = True
                elif last in KERNEL_LOAD_NAMES or last in KERNEL_RANDOM_NAMES:
                    reads = True
            if not qnames and isinstance(func, cst.Attribute):
                method = func.attr.value
                if method in DESCRIPTOR_METHODS_LOAD:
                    reads = True
                elif method in DESCRIPTOR_METHODS_STORE:
                    writes = True
                    reads = reads or method.startswith("atomic_")
    return reads, writes
