"""What Triton's CPU interpreter cannot judge (shared/cpu-interpreter.md), seen statically.

On the CPU, a case that hits one of these limits is reported `not_checkable` — never incorrect
(an honest kernel must not fail for the interpreter's sake) and never passed (fail closed). The
source is only parsed, never executed."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

LIBDEVICE = "libdevice"  # libdevice calls return None in the interpreter
BF16_DOT = "bf16-dot"  # tl.dot on bfloat16 operands returns garbage
BOOL_OPS = "bool-ops"  # Python and/or/not on block tensors may evaluate differently
AUTOTUNE = "autotune"  # multi-config autotune cannot benchmark: kgb keeps the first config

EXPLANATIONS = {
    LIBDEVICE: "uses triton libdevice, which returns None in the CPU interpreter",
    BF16_DOT: "uses tl.dot, which returns garbage for bfloat16 in the CPU interpreter",
    BOOL_OPS: "uses Python and/or/not inside a Triton kernel, which the CPU interpreter may "
              "evaluate differently from compiled Triton",
    AUTOTUNE: "autotuned: the CPU interpreter ran the first config only",
}


@dataclass(frozen=True)
class InterpreterLimits:
    features: frozenset[str]
    bf16_dot_fixed: bool = False  # kgb.runner.interpreter_fixes repairs bf16 tl.dot here

    def skip_reason(self, dtype: str) -> str | None:
        """Why a case cannot even be attempted on the interpreter (judged before running)."""
        if BF16_DOT in self.features and dtype == "bfloat16" and not self.bf16_dot_fixed:
            return EXPLANATIONS[BF16_DOT]
        return None

    def excuse_failure(self, kind: str) -> str | None:
        """Why a failed case ('raised' or 'mismatch') may be the interpreter's fault."""
        if kind == "raised" and LIBDEVICE in self.features:
            return EXPLANATIONS[LIBDEVICE]
        if kind == "mismatch" and BOOL_OPS in self.features:
            return EXPLANATIONS[BOOL_OPS]
        return None


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    if isinstance(node, cst.Call):
        return _dotted(node.func)
    return ""


class _Scanner(cst.CSTVisitor):
    def __init__(self) -> None:
        self.features: set[str] = set()
        self._jit_depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        names = [_dotted(d.decorator) for d in node.decorators]
        if any(n.split(".")[-1] == "jit" or n.endswith("jit") for n in names):
            self._jit_depth += 1
        if any("autotune" in n for n in names):
            self.features.add(AUTOTUNE)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        names = [_dotted(d.decorator) for d in original_node.decorators]
        if any(n.split(".")[-1] == "jit" or n.endswith("jit") for n in names):
            self._jit_depth -= 1

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == LIBDEVICE:
            self.features.add(LIBDEVICE)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == LIBDEVICE:
            self.features.add(LIBDEVICE)

    def visit_Call(self, node: cst.Call) -> None:
        if _dotted(node.func).split(".")[-1] == "dot":
            self.features.add(BF16_DOT)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if self._jit_depth:
            self.features.add(BOOL_OPS)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if self._jit_depth and isinstance(node.operator, cst.Not):
            self.features.add(BOOL_OPS)


def scan(source: str, bf16_dot_fixed: bool = False) -> InterpreterLimits:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:  # the static layer reports the syntax error
        return InterpreterLimits(frozenset(), bf16_dot_fixed)
    scanner = _Scanner()
    module.visit(scanner)
    return InterpreterLimits(frozenset(scanner.features), bf16_dot_fixed)
