"""What Triton's CPU interpreter cannot judge (shared/cpu-interpreter.md), seen statically.

On the CPU, a case that hits one of these limits is reported `not_checkable` — never incorrect
(an honest kernel must not fail for the interpreter's sake) and never passed (fail closed). The
source is only parsed, never executed. Which functions are Triton kernels is answered by the
static layer's own resolution (`kgb.anticheat.static.triton_kernels`)."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from kgb.protocol import BF16_DOT_FIX, BOOL_OPS_FIX, FP8_CAST_FIX, LIBDEVICE_FIX

LIBDEVICE = "libdevice"  # libdevice calls return None in the interpreter
BF16_DOT = "bf16-dot"  # tl.dot on bfloat16 operands returns garbage (unless repaired)
BOOL_OPS = "bool-ops"  # Python and/or/not on block tensors may evaluate differently
AUTOTUNE = "autotune"  # multi-config autotune cannot benchmark: kgb keeps the first config
FP8 = "fp8"  # float8 casts: the interpreter's own bit arithmetic rounds and saturates wrongly



EXPLANATIONS = {
    LIBDEVICE: "uses triton libdevice, which returns None in the CPU interpreter",
    BF16_DOT: "uses tl.dot, which returns garbage for bfloat16 in the CPU interpreter",
    BOOL_OPS: "uses Python and/or/not inside a Triton kernel, which the CPU interpreter may "
              "evaluate differently from compiled Triton",
    AUTOTUNE: "autotuned: the CPU interpreter ran the first config only",
    FP8: "uses float8 types, whose casts the CPU interpreter of this Triton rounds and "
         "saturates differently from the GPU (and kgb's repair was not applied)",
}


@dataclass(frozen=True)
class InterpreterLimits:
    features: frozenset[str]
    fixes: frozenset[str] = frozenset()  # the repairs the worker reported it applied

    def not_checkable(self, dtype: str) -> str | None:
        """Why a case cannot be judged on the interpreter whatever it returned."""
        if BF16_DOT in self.features and dtype == "bfloat16" and BF16_DOT_FIX not in self.fixes:
            return EXPLANATIONS[BF16_DOT]
        if FP8 in self.features and FP8_CAST_FIX not in self.fixes:
            return EXPLANATIONS[FP8]
        return None

    def excuse_failure(self, kind: str) -> str | None:
        """Why a failed case ('raised' or 'mismatch') may be the interpreter's fault: only a
        limitation this kernel has whose repair the worker did not apply. With the repairs in
        place a failure is the kernel's (a raised InterpreterLimitation names its own reason)."""
        if kind == "raised" and LIBDEVICE in self.features and LIBDEVICE_FIX not in self.fixes:
            return EXPLANATIONS[LIBDEVICE]
        if kind == "mismatch" and BOOL_OPS in self.features and BOOL_OPS_FIX not in self.fixes:
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


class _FileScanner(cst.CSTVisitor):
    """Anywhere in the file: libdevice and tl.dot."""

    def __init__(self) -> None:
        self.features: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self._name(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._name(node.attr.value)

    def _name(self, name: str) -> None:
        if name == LIBDEVICE:
            self.features.add(LIBDEVICE)
        if "float8" in name or name.startswith("fp8"):
            self.features.add(FP8)

    def visit_Call(self, node: cst.Call) -> None:
        if _dotted(node.func).split(".")[-1] == "dot":
            self.features.add(BF16_DOT)


class _KernelScanner(cst.CSTVisitor):
    """Inside kernel bodies: Python boolean operators."""

    def __init__(self) -> None:
        self.features: set[str] = set()

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self.features.add(BOOL_OPS)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self.features.add(BOOL_OPS)


def scan(source: str, task_precisions: tuple[str, ...] = ()) -> frozenset[str]:
    """The interpreter-limit features of a kernel file (names above). A task that consumes or
    produces float8 (`precisions` has fp8) uses it whatever the file names: a dequantizer's
    `tl.load(codes).to(tl.float32)` on a float8 pointer names no float8 type."""
    return _scanned(source) | ({FP8} if "fp8" in task_precisions else set())


def _scanned(source: str) -> frozenset[str]:
    from kgb.anticheat.static import triton_kernels

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:  # the static layer reports the syntax error
        return frozenset()
    features: set[str] = set()
    file_scanner = _FileScanner()
    module.visit(file_scanner)
    features |= file_scanner.features
    kernels, autotuned = triton_kernels(source)
    for kernel in kernels:
        kernel_scanner = _KernelScanner()
        kernel.body.visit(kernel_scanner)
        features |= kernel_scanner.features
    if autotuned:
        features.add(AUTOTUNE)
    return frozenset(features)
