"""The device memory a task's trusted reference needs at each shape, measured on torch's meta
device: nothing is allocated and no arithmetic is done, so a GPU shape costs no more than a tiny
one. A GPU run's judge holds the inputs, the reference's outputs and its intermediates at once;
a reference that builds a full [S, S] score matrix at a long sequence needs tens of GiB and the
case ends 'unverified' (run 20: fusion.sliding_window_attention_backward_dq tried 16 GiB).

    .venv/bin/python scripts/reference_peak.py [--only ID,ID] [--over GIB] [--float64]

prints one line per (task, shape): the peak of live tensor bytes while the reference runs
(inputs included), for the largest dtype the task runs (float32 before float16 and bfloat16),
or why it could not be measured (a reference that needs values, e.g. .tolist(), cannot run on
meta; a value read with .item() reads as 1 and a nonzero() is as large as it can be: the line
says how many were guessed). --float64 measures the judge's float64 truth call instead
(kgb.judge.truth), which the judge makes only for outputs that miss the bounds narrowly.

The count is of tensor storages reachable from Python or autograd, freed when their last tensor
dies; a caching allocator's rounding and fragmentation come on top (a few percent)."""

from __future__ import annotations

import argparse
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map

ROOT = Path(__file__).resolve().parent.parent
GIB = 1 << 30
META = torch.device("meta")
DTYPE_ORDER = ("float64", "float32", "float16", "bfloat16")


class LiveBytes(TorchDispatchMode):
    """Runs every aten op on the meta device (factory calls and CPU tensors included) and keeps
    the peak of the bytes of the storages that are alive."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: dict[int, int] = {}
        self.sizes: dict[int, int] = {}
        self.current = 0
        self.peak = 0
        self.reads = 0  # values read on the host (.item(): as 1) or sizes taken at their largest

    def _to_meta(self, value: Any) -> Any:
        if isinstance(value, torch.Tensor) and value.device != META:
            return value.to(META)
        if isinstance(value, torch.device):
            return META
        return value

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func is torch.ops.aten._local_scalar_dense.default:
            self.reads += 1  # a scale or a flag read on the host: the memory rarely depends on it
            return True if args[0].dtype == torch.bool else 1
        if func is torch.ops.aten.nonzero.default:
            self.reads += 1  # every element nonzero: the largest result, an upper bound
            out = torch.empty((args[0].numel(), args[0].dim()), dtype=torch.long, device=META)
            return self.track(out)
        if "generator" in kwargs:
            kwargs["generator"] = None  # a CPU generator cannot draw meta tensors
        if "device" in kwargs:
            kwargs["device"] = META
        out = func(*tree_map(self._to_meta, args), **tree_map(self._to_meta, kwargs))
        tree_map(self.track, out)
        return out

    def track(self, value: Any) -> Any:
        if not isinstance(value, torch.Tensor):
            return value
        storage = value.untyped_storage()
        key = storage._cdata
        if key not in self.refs:
            self.refs[key] = 0
            self.sizes[key] = storage.nbytes()
            self.current += storage.nbytes()
            self.peak = max(self.peak, self.current)
        self.refs[key] += 1
        weakref.finalize(value, self._release, key)
        return value

    def _release(self, key: int) -> None:
        self.refs[key] -= 1
        if self.refs[key] == 0:
            del self.refs[key]
            self.current -= self.sizes.pop(key)


def meta_peak(make: Callable[[], tuple], call: Callable[..., Any]) -> tuple[int, int, int]:
    """(bytes of the inputs `make` returns, peak live bytes while `call(*inputs)` runs with the
    inputs alive, values read on the host as 1), on the meta device."""
    mode = LiveBytes()
    with mode:
        inputs = make()
        held = mode.current
        result = call(*inputs)
        del result
    return held, mode.peak, mode.reads


def _load(path: Path, name: str) -> Any:
    from kgb.tasks.casegen import load_module

    return load_module(path, name)


Peak = tuple[str, str, int, int, int]  # shape, dtype, input bytes, peak bytes, host reads


def task_peaks(task: Any, float64: bool = False) -> list[Peak | str]:
    """(shape, dtype, input bytes, peak bytes, host reads) per shape of `task` at its widest
    dtype, or a line saying why a shape could not be measured."""
    from kgb.judge.truth import _in_float64
    from kgb.tasks.casegen import make_generator

    stem = task.id.replace(".", "_")
    inputs = _load(task.inputs_path, f"_peak_inputs_{stem}")
    reference = _load(task.reference_path, f"_peak_reference_{stem}")
    dtype = next((d for d in DTYPE_ORDER if d in task.dtypes), task.dtypes[0])
    rows: list[Peak | str] = []
    for shape in task.shapes:
        def make(shape=shape) -> tuple:
            made = inputs.make_inputs(shape.as_dict(), dtype, make_generator("cpu", 0),
                                      "standard")
            return tuple(made) if isinstance(made, (tuple, list)) else (made,)

        def call(*args: Any) -> Any:
            if float64:
                return _in_float64(reference.reference, args)
            return reference.reference(*args)

        try:
            held, peak, reads = meta_peak(make, call)
        except Exception as exc:  # e.g. a reference that needs values (nonzero, tolist)
            line = str(exc).strip().splitlines()
            try:
                size = f"inputs {meta_peak(make, lambda *_: None)[0] / GIB:.2f} GiB, "
            except Exception:  # the inputs need values too
                size = ""
            rows.append(f"{task.id} {shape.name}: {size}reference not measurable on meta "
                        f"({type(exc).__name__}: {line[0][:100] if line else ''})")
            continue
        rows.append((shape.name, dtype, held, peak, reads))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated task ids")
    parser.add_argument("--over", type=float, default=0.0, help="print only peaks above GIB")
    parser.add_argument("--float64", action="store_true")
    parser.add_argument("--tasks", type=Path, default=ROOT / "tasks")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from kgb.tasks.loader import load_suite

    suite = load_suite(args.tasks)
    only = {t for t in args.only.split(",") if t}
    for task_id, task in sorted(suite.items()):
        if only and task_id not in only:
            continue
        for row in task_peaks(task, args.float64):
            if isinstance(row, str):
                print(row)
            elif row[3] / GIB >= args.over:
                name, dtype, held, peak, reads = row
                guess = f" ({reads} values or sizes guessed)" if reads else ""
                print(f"{task_id} {name} {dtype}: inputs {held / GIB:.2f} GiB, "
                      f"peak {peak / GIB:.2f} GiB{guess}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
