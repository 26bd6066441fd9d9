"""FLOP and byte counts of a task as arithmetic expressions of its shape symbols.

Expressions come from task.toml, so they are evaluated by walking a restricted AST (numbers,
names, + - * / // ** and parentheses), never with eval()."""

from __future__ import annotations

import ast
import operator
from collections.abc import Mapping

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}


def check_expression(expr: str, symbols: set[str]) -> str | None:
    """None if `expr` is a valid cost expression over `symbols`, else what is wrong."""
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return f"{expr!r} is not an arithmetic expression"
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in symbols:
            return f"unknown symbol {node.id!r} (known: {', '.join(sorted(symbols))})"
        if not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.USub, ast.Constant,
                                 ast.Name, ast.Load, *_BINOPS)):
            return f"{expr!r} may only use numbers, shape symbols and + - * / // **"
    return None


def evaluate(expr: str, values: Mapping[str, float]) -> float:
    return float(_eval(ast.parse(expr, mode="eval").body, values))


def _eval(node: ast.AST, values: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, values)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _BINOPS[type(node.op)](_eval(node.left, values), _eval(node.right, values))
    raise ValueError(f"unsupported cost expression node {ast.dump(node)}")
