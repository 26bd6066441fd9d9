"""`python -m kgb.tasks.kernelbench.probe TASK_DIR SHAPES_JSON`: runs a freshly written
imported task once on the CPU, in a child process of the importer, and prints what it learnt
as one JSON object on the last line of stdout.

The problem file's code runs here for the first time: a crash, a hang or an exit of it ends
this process, not kgb (the importer reports it as that file's one-line error). Checked:
- make_inputs draws only from kgb's generator (the same generator seed gives the same inputs
  whatever torch's global RNG holds), so both workers can regenerate every case;
- the inputs.py init_inputs() equals the problem's own get_init_inputs();
- the reference runs at every shape asked (a scaled shape that breaks the problem, say a
  spatial size below the kernel size, is dropped), in both input modes;
- the inputs' and outputs' dtypes and sizes (for the task's dtype, compare mode and tags).

The problem's code shares this process and may print anything, after the report too: the
importer reads the report with `read_report`, which refuses any line that is not what `probe`
writes (threat 38)."""

from __future__ import annotations

import json
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

from kgb.jsonfiles import Bounds, Refused, loads_json

# What one shape's entry may hold, each key with its exact type (bool is not an int here).
FIELDS = {"elements": int, "estimated": bool, "dtype": str, "error": str, "out_integer": bool,
          "finite": bool, "outlier_ok": bool}
REPORT_BOUNDS = Bounds(max_bytes=1 << 20, max_depth=3)
MAX_TEXT = 400  # characters of an error or mismatch the probe writes (it cuts its own to 200)


def probe(task_dir: Path, shapes: dict[str, dict[str, int]],
          max_elements: int) -> dict[str, Any]:
    """Shapes run in the order given; one whose inputs, estimated from the first shape that
    ran (sizes scale with each dim), exceed `max_elements` is not run but reported with its
    estimate (`"estimated": true`): the problem's own, GPU-sized shape."""
    import torch

    from kgb.tasks.casegen import fingerprint, load_module, make_generator

    inputs = load_module(task_dir / "inputs.py", "kgb_kb_probe_inputs")
    reference = load_module(task_dir / "reference.py", "kgb_kb_probe_reference")
    found: dict[str, Any] = {"shapes": {}}
    ours, theirs = repr(list(inputs.init_inputs())), repr(list(reference.get_init_inputs()))
    if ours != theirs:
        found["init_mismatch"] = f"{ours[:80]} != {theirs[:80]}"
    first: tuple[dict[str, int], int] | None = None
    for name, dims in shapes.items():
        entry: dict[str, Any] = {}
        found["shapes"][name] = entry
        if first is not None:
            estimate = first[1]
            for dim, size in dims.items():
                estimate = estimate * size // max(1, first[0].get(dim, size))
            if estimate > max_elements:
                entry.update(elements=estimate, estimated=True)
                continue
        try:
            torch.manual_seed(1)
            made = inputs.make_inputs(dict(dims), "float32", make_generator("cpu", 7), "standard")
            torch.manual_seed(2)
            again = inputs.make_inputs(dict(dims), "float32", make_generator("cpu", 7),
                                       "standard")
            if fingerprint(tuple(made)) != fingerprint(tuple(again)):
                entry["error"] = "get_inputs() draws from torch's global RNG in a way kgb " \
                                 "could not redirect to its generator"
                continue
            tensors = [t for t in made if isinstance(t, torch.Tensor)]
            entry["elements"] = sum(t.numel() for t in tensors)
            first = first or (dict(dims), max(1, entry["elements"]))
            floats = [t for t in tensors if t.is_floating_point()]
            entry["dtype"] = str((floats or tensors)[0].dtype).removeprefix("torch.") \
                if tensors else "float32"
            with torch.no_grad():
                out = reference.reference(*made)
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            if not all(isinstance(o, torch.Tensor) for o in outs):
                entry["error"] = "forward() does not return a tensor or a tuple of tensors"
                continue
            entry["out_integer"] = all(not o.is_floating_point() for o in outs)
            entry["finite"] = all(bool(torch.isfinite(o).all()) for o in outs
                                  if o.is_floating_point())
            entry["outlier_ok"] = _outlier_ok(inputs, reference, dims, entry["finite"])
        except Exception as exc:
            entry["error"] = _printable(
                f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}"
                if str(exc).strip() else type(exc).__name__)
    return found


def _printable(text: str) -> str:
    """An exception's words as read_report accepts them: no control characters."""
    return "".join(c if c.isprintable() else "?" for c in text)


def read_report(line: str, asked: Collection[str]) -> dict[str, Any]:
    """The probe's report for the shapes `asked`, checked to be what `probe` writes; Refused
    (one line) otherwise — a forged or garbled line costs its problem file, not the import."""
    where = "its probe report"
    found = loads_json(line, REPORT_BOUNDS, where)

    def refuse(why: str) -> Refused:
        return Refused(where, why, "syntax")

    if not isinstance(found, dict) or not set(found) <= {"shapes", "init_mismatch"}:
        raise refuse("is not an object of shapes")
    shapes = found.get("shapes")
    if not isinstance(shapes, dict) or set(shapes) != set(asked):
        raise refuse("does not name the shapes it was asked to run")
    if "init_mismatch" in found and not _text(found["init_mismatch"]):
        raise refuse("has an unreadable init_mismatch")
    for name, entry in shapes.items():
        if not isinstance(entry, dict):
            raise refuse(f"has no object for shape {name!r}")
        for key, value in entry.items():
            kind = FIELDS.get(key)
            if kind is None or type(value) is not kind or (kind is str and not _text(value)) \
                    or (isinstance(value, int) and value < 0):
                raise refuse(f"has an unexpected {key[:40]!r} for shape {name!r}")
        # What the importer reads of a shape that ran: its size, and its dtype unless estimated.
        if "error" not in entry and ("elements" not in entry or
                                     not (entry.get("estimated") or "dtype" in entry)):
            raise refuse(f"says too little of shape {name!r}")
    return found


def _text(value: object) -> bool:
    return isinstance(value, str) and len(value) <= MAX_TEXT and value.isprintable()


def _outlier_ok(inputs: Any, reference: Any, dims: dict[str, int], finite: bool) -> bool:
    """Outlier inputs keep the answer finite where standard inputs do (a problem that takes a
    log of its input, say, would turn amplified negative elements into NaN)."""
    import torch

    from kgb.tasks.casegen import make_generator

    try:
        made = inputs.make_inputs(dict(dims), "float32", make_generator("cpu", 8), "outlier")
        with torch.no_grad():
            out = reference.reference(*made)
    except Exception:
        return False
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    return not finite or all(bool(torch.isfinite(o).all()) for o in outs
                             if isinstance(o, torch.Tensor) and o.is_floating_point())


if __name__ == "__main__":
    result = probe(Path(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]))
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()
