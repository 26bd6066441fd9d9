"""Frozen domain objects of the suite. Parsing lives in loader.py; this file only describes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kgb.protocol import CallKind, CallSpec, CaseSpec, to_json

CATEGORIES = (
    "Activation", "Convolution", "Fusion", "Index", "LinearAlgebra", "Loss", "Math",
    "MatrixMultiply", "Normalization", "Optimizer", "Pooling", "Quantization", "Random",
    "Reduce", "SpatialOps",
)
SHAPE_TAGS = ("tiny", "small", "medium", "large", "pow2", "non-pow2", "rectangular", "square")
DTYPES = ("float32", "float16", "bfloat16", "int8", "int32", "int64")
COMPARE_MODES = ("allclose", "exact", "statistical")
INPUT_MODES = ("standard", "outlier")
# What the entry's host code may do besides allocating and viewing (docs/tasks.md, "Glue"):
# "copies" (the default) also lets PyTorch copy tensor data (`.contiguous()` of a strided
# input, `clone`, `copy_`); "views" makes every such copy compute, for a task whose answer is a
# re-layout: there PyTorch's copy is the answer and a Triton memcpy would only carry it out.
GLUE_POLICIES = ("copies", "views")
# Precision coverage (issue 27): the tags `kgb tasks list --json` counts. int32/int64 are
# indices and accumulators, not a precision a kernel is asked to compute in.
PRECISIONS = ("fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4")
PRECISION_OF_DTYPE = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "int8": "int8"}
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2, "int8": 1, "int32": 4, "int64": 8}


@dataclass(frozen=True)
class ZeroPoint:
    """An asymmetric quantizer's codes judged by what they mean (task.toml `[zero_point]`,
    docs/tasks.md): the offsets codes - zero of each group, with the zero points compared as an
    integer output of their own. A zero point on a .5 tie that another float32 rounding flips
    moves every code of its group by one; the offsets do not move."""

    codes: int  # index of the integer codes output, [..., K]
    zeros: int  # index of the zero points output, [..., ceil(K / group)]
    group: int  # codes per zero point along the last dimension
    low: int  # the codes' format: every code and zero point lies in [low, high]
    high: int
    # the share of zero points that may differ (each within int_atol; at least 3): the
    # dtype's int_mismatch is for the codes, and a .5 tie at a zero point is a tie of its
    # group's minimum, as common per group as a code's tie is per code
    zeros_mismatch: float = 0.0


@dataclass(frozen=True)
class Tolerance:
    """Per-dtype acceptance: elementwise allclose AND relative L2 error; integer outputs may
    differ by at most `int_atol` (rounding at exact .5 boundaries), NaN/Inf positions exact.
    `int_mismatch`: for integer and float8 codes, the share of codes that may differ at all
    (within int_atol), in place of rel_l2 over the codes — whose norm is small where an
    outlier makes most codes 0 or ±1, so one flipped tie weighs more than truncation does."""

    atol: float
    rtol: float
    rel_l2: float
    int_atol: int = 0
    int_mismatch: float | None = None
    zero_point: ZeroPoint | None = None  # the task's [zero_point], the same for every dtype


@dataclass(frozen=True)
class ShapeSpec:
    name: str
    dims: tuple[tuple[str, int], ...]  # ordered (symbol, size) pairs, e.g. (("M", 3), ("N", 5))
    tags: tuple[str, ...]
    gpu_only: bool = False  # too large for the CPU interpreter

    def as_dict(self) -> dict[str, int]:
        return dict(self.dims)


@dataclass(frozen=True)
class Task:
    id: str
    category: str
    source: str
    level: int
    direction: str
    entry: str
    description: str
    signature: str
    dtypes: tuple[str, ...]
    shapes: tuple[ShapeSpec, ...]
    tolerance: tuple[tuple[str, Tolerance], ...]
    flops: str  # expression over the shape symbols and `itemsize`
    bytes: str
    compare: str = "allclose"
    modes: tuple[str, ...] = INPUT_MODES
    forbid: tuple[str, ...] = ()
    # Inputs the description promises may be non-contiguous: extra cases give them a padded
    # and a transposed layout (kgb.tasks.casegen), so a kernel that ignores strides fails.
    strided_inputs: tuple[int, ...] = ()
    deterministic: bool = True  # the same inputs twice must give bit-identical outputs
    # The tolerance is the task's accuracy contract at every element: no rounding-noise
    # forgiveness against the float64 truth (a task whose point is accuracy at a few elements).
    strict_tolerance: bool = False
    seed_input: int | None = None  # Random tasks: the index of the seed argument
    glue: str = "copies"  # GLUE_POLICIES
    # The in-place output contract (docs/tasks.md, "In-place tasks"): indices of the inputs the
    # entry updates in place, as real optimizers do. After the call those inputs' memory is
    # the output (in this order); writes to any other input are still D201.
    inplace: tuple[int, ...] = ()
    # Precisions the task exercises beyond its dtypes (what a quantizer produces or a
    # dequantizer consumes: fp8, int4, fp4), declared in task.toml as `precisions`.
    extra_precisions: tuple[str, ...] = ()
    folder: Path = field(default=Path("."), compare=False)

    @property
    def inputs_path(self) -> Path:
        """make_inputs: the only task file the untrusted worker ever loads."""
        return self.folder / "inputs.py"

    @property
    def reference_path(self) -> Path:
        """reference (and check, for statistical tasks): loaded by the trusted judge only."""
        return self.folder / "reference.py"

    @property
    def solution_path(self) -> Path:
        return self.folder / "solution.py"

    @property
    def precisions(self) -> tuple[str, ...]:
        """The precision tags of `kgb tasks list` (PRECISIONS order): the dtypes it runs, and
        what it declares beyond them."""
        tags = {PRECISION_OF_DTYPE[d] for d in self.dtypes if d in PRECISION_OF_DTYPE}
        tags |= set(self.extra_precisions)
        return tuple(p for p in PRECISIONS if p in tags)

    def tolerance_for(self, dtype: str) -> Tolerance:
        return dict(self.tolerance)[dtype]

    def cost(self, dims: Mapping[str, int], dtype: str) -> tuple[float, float]:
        """(FLOPs, bytes) of the task's cost model at these dims and dtype."""
        from kgb.tasks.cost_model import evaluate

        values = dict(dims, itemsize=ITEMSIZE.get(dtype, 4))
        return evaluate(self.flops, values), evaluate(self.bytes, values)

    def shapes_for(self, device: str) -> tuple[ShapeSpec, ...]:
        return tuple(s for s in self.shapes if device != "cpu" or not s.gpu_only)


@dataclass(frozen=True)
class Case:
    """One call of the kernel: a shape, a dtype, an input distribution and the seed that makes
    its inputs. Both workers regenerate the same inputs from these fields alone."""

    id: str  # e.g. "tiny-float16-outlier", "odd-float32-standard-padded"
    shape: ShapeSpec
    dtype: str
    mode: str
    seed: int
    layout: str = "contiguous"  # kgb.tasks.casegen.LAYOUTS
    calls: tuple[CallSpec, ...] = ()  # the calls kgb makes (the first is the primary one)

    def to_dict(self) -> dict:
        return {"id": self.id, "shape": self.shape.name, "dims": self.shape.as_dict(),
                "dtype": self.dtype, "mode": self.mode, "seed": self.seed,
                "layout": self.layout, "calls": to_json(self.calls)}

    def spec(self, skip: str | None = None, flops: float = 0.0,
             bytes_: float = 0.0) -> CaseSpec:
        """The case as the workers are given it."""
        calls = self.calls or (CallSpec(CallKind.PRIMARY, self.seed),)
        return CaseSpec(self.id, self.shape.name, self.shape.as_dict(), self.dtype, self.mode,
                        self.layout, calls, skip, flops, bytes_)
