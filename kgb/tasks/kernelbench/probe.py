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
- the inputs' and outputs' dtypes and sizes (for the task's dtype, compare mode and tags)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


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
            entry["error"] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200]}" \
                if str(exc).strip() else type(exc).__name__
    return found


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
