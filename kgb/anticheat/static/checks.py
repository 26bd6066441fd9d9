"""Runs every static check over one parsed module and returns the hits, unpositioned."""

from __future__ import annotations

import libcst as cst

from kgb.anticheat.static import (
    host_compute,
    imports,
    launch_args,
    outputs,
    reachability,
    references,
    state,
)
from kgb.anticheat.static.collect import collect
from kgb.anticheat.static.context import Analysis, Hit
from kgb.anticheat.static.tensors import TensorFacts


def run_checks(module: cst.Module, entry: str, forbid: tuple[str, ...],
               category: str | None) -> list[Hit]:
    a = Analysis(collect(module), entry, forbid, category)
    tensors = TensorFacts(a)
    hits = reachability.check(a)
    hits += references.check(a)
    hits += imports.check(a)
    hits += host_compute.check(a, tensors)
    hits += launch_args.check(a, tensors)
    hits += state.check(a, tensors)
    entry_funcs = reachability.entry_functions(a, [])
    if entry_funcs:
        hits += outputs.check(a, tensors, {f for f in entry_funcs if f not in a.kernel_code})
    return hits
