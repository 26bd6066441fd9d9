"""Layer 1 of the anti-cheat: static analysis of a kernel file with libcst, before any GPU time.

`analyze` is pure: it never imports or executes the candidate and never raises on hostile input
(anything it cannot analyse is an S100 finding, so a file that defeats the analyser is rejected,
not waved through). The rules themselves are declared in rules.py; policy.py is the allowlist.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

from kgb.anticheat.registry import Finding
from kgb.anticheat.static import rules as R

if TYPE_CHECKING:
    from kgb.tasks.model import Task

__all__ = ["MAX_BYTES", "MAX_DEPTH", "analyze", "analyze_file", "format_findings", "task_forbid"]

# Beyond these the parsers themselves become the attack surface: libcst's native parser crashes
# the process or runs for minutes on expressions nested a few thousand deep.
MAX_BYTES = 1_000_000
MAX_DEPTH = 100


def analyze(source: str, filename: str, entry: str, forbid: tuple[str, ...] = (),
            category: str | None = None) -> list[Finding]:
    """Every static finding for one kernel file, sorted by position; [] means clean."""
    try:
        return _analyze(source, filename, entry, tuple(forbid), category)
    except (RecursionError, MemoryError):
        return [Finding(R.UNPARSEABLE.id, "the file is too complex to analyse", filename, 1, 1)]
    except Exception as exc:
        return [Finding(R.UNPARSEABLE.id, f"the analyser failed on this file "
                                          f"({type(exc).__name__}: {exc}); it cannot be trusted",
                        filename, 1, 1)]


def analyze_file(path: str | Path, task: Task | None = None) -> list[Finding]:
    """`analyze` on a file, with the task's entry, forbid list and category (entry "run" and no
    task-specific forbids without a task)."""
    path = Path(path)
    entry, forbid, category = ("run", (), None) if task is None else (
        task.entry, task_forbid(task), task.category)
    data = path.read_bytes()
    if len(data) > MAX_BYTES:
        return [_too_large(str(path), len(data))]
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Finding(R.UNPARSEABLE.id, f"not UTF-8 text (byte {exc.start})", str(path), 1, 1)]
    return analyze(source, str(path), entry, forbid, category)


def task_forbid(task: Task) -> tuple[str, ...]:
    """The task's `forbid` list and what its glue policy takes out of host glue."""
    from kgb.anticheat.static.policy import glue_forbid

    return tuple(task.forbid) + glue_forbid(task.glue)


def format_findings(findings: list[Finding], as_json: bool = False, **context: object) -> str:
    """`file:line:col RULE message` lines (the flake8 shape editors understand), or a JSON
    object {**context, "findings": [...]}."""
    if as_json:
        import json

        return json.dumps({**context, "findings": [f.to_dict() for f in findings]}, indent=2)
    return "\n".join(f"{f.location()} {f.rule} {f.message}" for f in findings)


def _too_large(filename: str, size: int) -> Finding:
    return Finding(R.UNPARSEABLE.id, f"the file has {size} bytes; the limit is {MAX_BYTES}",
                   filename, 1, 1)


def _analyze(source: str, filename: str, entry: str, forbid: tuple[str, ...],
             category: str | None) -> list[Finding]:
    if not isinstance(source, str):
        return [Finding(R.UNPARSEABLE.id, "the source is not text", filename, 1, 1)]
    if len(source) > MAX_BYTES:
        return [_too_large(filename, len(source))]
    problem = _precheck(source)
    if problem is not None:
        message, line, col = problem
        return [Finding(R.UNPARSEABLE.id, message, filename, line, col)]

    import libcst as cst  # imported here so `kgb --help` and the registry stay light

    from kgb.anticheat.static.checks import run_checks
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return [Finding(R.UNPARSEABLE.id, f"libcst cannot parse the file: {exc.message}",
                        filename, exc.raw_line, exc.raw_column + 1)]
    hits = run_checks(module, entry, forbid, category)
    if not hits:
        return []
    return _positioned(module, hits, filename)


def _precheck(source: str) -> tuple[str, int, int] | None:
    """CPython's own parser first: it rejects what is not Python with a good message and bounds
    what reaches libcst (nesting depth), which is not robust against hostile nesting."""
    if "\x00" in source:
        return "the file contains NUL bytes", 1, 1
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return f"syntax error: {exc.msg}", exc.lineno or 1, exc.offset or 1
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"the file cannot be parsed ({type(exc).__name__})", 1, 1
    node = _too_deep(tree)
    if node is not None:
        return f"expressions nested deeper than {MAX_DEPTH} levels", getattr(node, "lineno", 1), 1
    return None


def _too_deep(tree: ast.AST) -> ast.AST | None:
    """The first node deeper than MAX_DEPTH (iterative: the check itself must not recurse)."""
    node_type = ast.AST
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth > MAX_DEPTH:
            return node
        depth += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type):
                        push((item, depth))
            elif isinstance(value, node_type) and name != "ctx":
                push((value, depth))
    return None


def _positioned(module, hits, filename: str) -> list[Finding]:
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    seen: set[tuple[str, int, str]] = set()
    findings: list[Finding] = []
    for hit in hits:
        key = (hit.rule.id, id(hit.node), hit.message)
        if key in seen:
            continue
        seen.add(key)
        where = positions.get(hit.node)
        line, col = (where.start.line, where.start.column + 1) if where else (1, 1)
        findings.append(Finding(hit.rule.id, hit.message, filename, line, col))
    findings.sort(key=lambda f: (f.line or 0, f.col or 0, f.rule))
    return findings


def triton_kernels(source: str) -> tuple[list, bool]:
    """The one answer to "which functions does Triton compile?", shared by the static rules and
    the interpreter scan: the FunctionDef nodes decorated with (or wrapped by) triton.jit —
    however triton was imported, bare, called or under autotune/heuristics — and functions
    nested in them; plus whether any kernel is autotuned. ([], False) when the file does not
    parse (the static layer reports that)."""
    import libcst as cst

    from kgb.anticheat.static.collect import collect
    from kgb.anticheat.static.context import Analysis
    from kgb.anticheat.static.policy import TRITON_AUTOTUNE

    try:
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError):
        return [], False
    a = Analysis(collect(module), "run", (), None)
    kernels = [a.model.funcs[i].node for i in sorted(a.kernel_code)
               if isinstance(a.model.funcs[i].node, cst.FunctionDef)]
    autotuned = False
    for i in a.jit:
        func = a.model.funcs[i]
        for deco in func.decorators:
            target = deco.func if isinstance(deco, cst.Call) else deco
            if ("q", TRITON_AUTOTUNE) in a.resolve.expr(target, func.outer):
                autotuned = True
    return kernels, autotuned
