"""Which dims change a kernel's regime, read off the task's own reference (issue 27; issue 13's
bar: "CPU shapes that reach every regime of the GPU shapes").

A kernel honest only up to one fixed block along an axis it reduces, scans or permutes (no loop
over the rest) passes every CPU case whose extent along that axis fits the block, and fails on
the GPU (seen: zeros for rows >= 16384 passed softmax's CPU run). Which axis that is follows from
what the task computes, not from its shapes (most dims over a block on the GPU are batch or
elementwise dims), so it is read off the reference by changing one input element at a time and
seeing which outputs move. A dim D is a regime dim when some output element moves both when
an input's first and when its last element along D changes (the other coordinates in the
middle, then at 0), or both when two elements WINDOW + 1 apart around the middle do: that
element needs more of the axis than a window. It is

- **reduced** where no output has an axis D (matmul's K, a row sum's N), and
- **mixed** where one has (softmax's, a scan's, a sort's N).

An elementwise op, a broadcast, a gather, a resampling or a window (convolution, pooling)
never joins two elements that far apart, so none of them counts; each dim is probed on the CPU
shape where it is longest, and a dim no longer than `WINDOW` there is not probed.

Axes are named by the task's signature (`Tensor[M, 2N]`: M, then N); an axis whose expression
names no dim or several is not read. An integer input (an index, a code) is set only to values
it already holds, so it stays a valid input of the task. What a seed decides (a dropout2d
channel, a permutation) moves nothing here and stays the tasks' own statement
(tests/test_cpu_regimes.py names those).

`python -m kgb.suite.regimes [TASK_DIR ...]` prints, per task, the dims found and those over
`BLOCK` on a GPU shape but on no CPU shape; it exits 1 when any task has such a dim."""

from __future__ import annotations

import argparse
import functools
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from kgb.errors import TaskError
from kgb.judge.inplace import as_judged
from kgb.judge.truth import as_outputs
from kgb.tasks.casegen import generate_inputs, load_module
from kgb.tasks.index import index_suite
from kgb.tasks.loader import load_suite, load_task
from kgb.tasks.model import ShapeSpec, Task

BLOCK = 1024  # the longest block a typical kernel takes along one axis
WINDOW = 8  # no longer than this, a window may reach both ends of an axis: not probed
_IDENT = re.compile(r"[A-Za-z_]\w*")

Axes = tuple[str | None, ...]  # one dim name per axis; None where the signature names none


@dataclass(frozen=True)
class Regimes:
    task: str
    dims: tuple[str, ...]  # the regime dims found, sorted
    short: tuple[str, ...]  # of those, over BLOCK on some GPU shape and on no CPU shape
    why: tuple[str, ...]  # per dim found, how ("N: reduced (x)", "N: mixed (x -> out0)")


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _axes(type_text: str, dims: Sequence[str]) -> Axes | None:
    """The named axes of `Tensor[...]`, None for any other type."""
    match = re.fullmatch(r"Tensor\[(.*)\](\s+\w+)?", type_text.strip())  # [M, N] int32
    if match is None:
        return None
    names = []
    for axis in _split_top(match.group(1)):
        found = {n for n in _IDENT.findall(axis) if n in dims}
        names.append(found.pop() if len(found) == 1 else None)
    return tuple(names)


def signature_axes(signature: str, dims: Sequence[str]) -> tuple[list[Axes | None],
                                                                   list[Axes | None]]:
    """Per argument and per output of `run(...) -> ...`, its named axes (None: not a
    tensor with axes given)."""
    match = re.fullmatch(r"\s*\w+\((.*)\)\s*->\s*(.*)", signature, re.S)
    if match is None:
        return [], []
    args = [_axes(a.split(":", 1)[1], dims) if ":" in a else None
            for a in _split_top(match.group(1))]
    ret = match.group(2).strip()
    inner = re.fullmatch(r"tuple\[(.*)\]", ret)
    outs = [_axes(r, dims) for r in (_split_top(inner.group(1)) if inner else [ret])]
    return args, outs


def _probe_shapes(task: Task) -> dict[str, ShapeSpec]:
    """Per dim, the CPU shape where it is longest (ties: the smallest shape): each axis seen at
    its widest, where a window is narrow beside it."""
    cpu = [s for s in task.shapes if not s.gpu_only]

    def size(shape: ShapeSpec) -> int:
        return math.prod(max(v, 1) for v in shape.as_dict().values())

    best: dict[str, ShapeSpec] = {}
    for shape in sorted(cpu, key=size):
        for d, v in shape.as_dict().items():
            if d not in best or v > best[d].as_dict()[d]:
                best[d] = shape
    return best


def _changed(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.is_floating_point() or a.is_complex():
        same = (a == b) | (a.isnan() & b.isnan())
    else:
        same = a == b
    return ~same


def _set(x: torch.Tensor, at: tuple[int, ...], value: float) -> torch.Tensor:
    y = x.clone()
    y[at] = torch.tensor(value).to(x.dtype)
    return y


class _Probe:
    """A task's reference on one CPU shape's float32 (or first-dtype) standard inputs."""

    def __init__(self, task: Task, shape: ShapeSpec) -> None:
        self.dims = shape.as_dict()
        self.args, self.outs = signature_axes(task.signature, list(self.dims))
        inputs_module = load_module(task.inputs_path, f"kgb_regime_inputs_{id(self)}")
        self.reference = as_judged(load_module(task.reference_path,
                                               f"kgb_regime_ref_{id(self)}"), task.inplace)
        dtype = "float32" if "float32" in task.dtypes else task.dtypes[0]
        self.inputs = generate_inputs(inputs_module, self.dims, dtype, "standard", 20261128,
                                      "cpu", "contiguous", ())
        self.base = self._run(self.inputs)

    def _run(self, inputs: tuple) -> list[torch.Tensor] | None:
        try:
            with torch.no_grad():
                return list(as_outputs(self.reference.reference(*inputs)))
        except Exception:  # a value outside the reference's domain: not this probe's
            return None

    def moved(self, a: int, at: tuple[int, ...]) -> list[torch.Tensor]:
        """Per output, where it moves when input `a`'s element `at` is set to the least and the
        largest value the input holds (its own domain: a probability stays one) and then far
        above them all (a sort moves it to an end, a softmax's row max becomes it, a scan
        carries it on)."""
        x = self.inputs[a]
        values = x.detach().float().nan_to_num(0.0)
        bumps = [float(values.min()), float(values.max())]
        if x.is_floating_point():  # an integer input may be an index: kept to its own values
            bumps.append(min(float(values.abs().max()) * 4 + 1, torch.finfo(x.dtype).max / 8))
        assert self.base is not None
        seen = [torch.zeros(t.shape, dtype=torch.bool) if isinstance(t, torch.Tensor) else None
                for t in self.base]
        for value in bumps:
            given = tuple(_set(x, at, value) if i == a else v for i, v in enumerate(self.inputs))
            got = self._run(given)
            for o, (b, m) in enumerate(zip(self.base, got or [], strict=False)):
                if seen[o] is not None and isinstance(m, torch.Tensor) and m.shape == b.shape:
                    seen[o] |= _changed(b, m)
        return [s if s is not None else torch.zeros(0, dtype=torch.bool) for s in seen]


def _joined(probe: _Probe, a: int, axis: int) -> int | None:
    """The output that moves both when input `a`'s element at one and at another index along
    `axis` changes, if any: an output element that needs the axis whole, or more of it than a
    window. Two pairs: the axis' ends, and two indices WINDOW + 1 apart around its middle (a
    segmented reduction, a sliding window of keys, a recurrence whose reach fades, a masked
    tail: their ends share no output). The other coordinates in the middle, then at 0: a
    ragged input's middle row may be short (a random per-row length) where its first is not."""
    x = probe.inputs[a]
    n = x.shape[axis]
    pairs = [(0, n - 1)]
    if n > 2 * (WINDOW + 1):
        pairs.append((n // 2 - (WINDOW + 1) // 2 - 1, n // 2 + (WINDOW + 1) // 2))
    bases = [[size // 2 for size in x.shape], [0] * x.dim()]
    if all(size == 1 or i == axis for i, size in enumerate(x.shape)):
        bases = bases[:1]  # no other coordinate to move: the second base repeats the first
    for base in bases:
        for pair in pairs:
            moved = []
            for index in pair:
                at = list(base)
                at[axis] = index
                moved.append(probe.moved(a, tuple(at)))
            for o, (one, other) in enumerate(zip(*moved, strict=True)):
                if one.numel() and bool((one & other).any()):
                    return o
    return None


def find_regimes(task: Task, block: int = BLOCK) -> Regimes:
    """The dims along which some output element needs its input whole, each probed on the CPU
    shape where it is longest."""
    why: dict[str, str] = {}
    probes: dict[str, _Probe] = {}
    for d, shape in _probe_shapes(task).items():
        probe = probes.setdefault(shape.name, _Probe(task, shape))
        if probe.base is None or probe.dims[d] <= WINDOW:
            continue  # too short to tell a window from the whole axis
        # An index set to a value it already holds can put two writes on one slot, and which
        # wins is not fixed (qkv_rope_cache_write's T came and went): integer inputs are
        # probed only where no float input is (argsort's keys).
        any_float = any(isinstance(v, torch.Tensor) and v.is_floating_point()
                        for v in probe.inputs)
        for a, x in enumerate(probe.inputs):
            axes = probe.args[a] if a < len(probe.args) else None
            if not isinstance(x, torch.Tensor) or x.dtype == torch.bool or axes is None \
                    or (not x.is_floating_point() and any_float) \
                    or len(axes) != x.dim() or d not in axes or x.shape[axes.index(d)] <= 1:
                continue
            o = _joined(probe, a, axes.index(d))
            if o is not None:
                where = "reduced" if d not in {n for axes in probe.outs if axes for n in axes} \
                    else "mixed"
                why[d] = f"{d}: {where} (input {a} -> output {o}, shape {shape.name})"
                break
    found = tuple(sorted(why))
    return Regimes(task.id, found, short_dims(task, found, block),
                   tuple(why[d] for d in found))


def short_dims(task: Task, dims: Sequence[str], block: int = BLOCK) -> tuple[str, ...]:
    """The `dims` over `block` on some GPU shape and on no CPU shape."""
    cpu = [s.as_dict() for s in task.shapes if not s.gpu_only]
    gpu = [s.as_dict() for s in task.shapes if s.gpu_only]
    return tuple(d for d in dims
                 if max((s.get(d, 0) for s in gpu), default=0) > block
                 and max((s.get(d, 0) for s in cpu), default=0) <= block)


@functools.cache
def _index():
    return index_suite(Path("tasks"))


def _load(name: str) -> Task:
    """A task by its folder, or by its id in ./tasks (indexed once for every name)."""
    if Path(name).is_dir():
        return load_task(Path(name))
    index = _index()
    if name not in index:
        raise TaskError(f"{name}: neither a task folder nor a task id of ./tasks (run from the "
                        "repository, or give the folder)")
    return index.load(name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgb.suite.regimes")
    parser.add_argument("tasks", nargs="*",
                        help="task ids or task folders (default: every task under ./tasks)")
    args = parser.parse_args(argv)
    try:
        tasks = [_load(name) for name in args.tasks] if args.tasks else \
            list(load_suite(Path("tasks")).values())
    except TaskError as exc:
        print(f"python -m kgb.suite.regimes: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    short = 0
    for task in tasks:
        found = find_regimes(task)
        short += bool(found.short)
        flag = f"  SHORT on the CPU: {', '.join(found.short)}" if found.short else ""
        print(f"{task.id}: {'; '.join(found.why) or 'none'}{flag}")
    print(f"{len(tasks)} tasks, {short} with a regime dim no CPU shape reaches")
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
