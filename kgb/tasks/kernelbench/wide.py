"""CPU shapes that reach the regimes of a problem's own, GPU-only shape (issue 28).

KernelBench gives one shape, often far beyond what the CPU interpreter can run (softmax at
4096 x 393216). The scaled `tiny` and `odd` shapes keep every dim small, so a kernel that is
right only below a size — a hard-coded BLOCK_SIZE = 1024 without a loop, zeros for rows longer
than 16384 — passed every CPU case and printed `passed`. Here each scaled dim gets one more
CPU shape, `wide_<dim>`: that dim one past the largest power of two below the problem's own
length (above every block a kernel that is right at the problem's own size can take in one
piece, and never a power of two) or as long as the CPU's element budget allows, the others
small. Candidates are run by the probe like every shape; a dim that still falls short of that
length and of REGIME is named in the task's description."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kgb.tasks.kernelbench.task_files import Shape

# Long enough to be above every block a kernel takes in one piece: libraries cap single-block
# rows at 64 Ki elements (Liger's MAX_FUSED_SIZE), Triton a block at 1 Mi elements.
REGIME = (1 << 17) + 1
OTHERS = 2  # the other scaled dims in the first candidate: "a row longer than a block at M=2"


def estimate(base: dict[str, int], base_elements: int, dims: dict[str, int]) -> int:
    """The probe's estimate of a shape's input elements from a shape that ran (sizes scale
    with each dim), computed the same way (kgb.tasks.kernelbench.probe)."""
    out = base_elements
    for dim, size in dims.items():
        out = out * size // max(1, base.get(dim, size))
    return out


def candidates(cpu: list[Shape], elements: dict[str, int], scalable: list[str],
               given: dict[str, int], budget: int) -> dict[str, dict[str, int]]:
    """For each scaled dim the CPU shapes leave shorter than the problem's own: `wide_<dim>`
    (the others at OTHERS) and `wide_<dim>.tiny` (the others as in the smallest CPU shape,
    for problems that fail at OTHERS, e.g. a spatial size below a kernel size). The smallest
    CPU shape comes first: the probe estimates the others from it."""
    base = min(cpu, key=lambda s: elements[s.name])
    found: dict[str, dict[str, int]] = {base.name: dict(base.dims)}
    for dim in scalable:
        if above_blocks(given[dim]) <= max(s.dims[dim] for s in cpu):
            continue
        two = {k: min(v, OTHERS) if k in scalable else v for k, v in base.dims.items()}
        for name, others in ((f"wide_{dim}", two), (f"wide_{dim}.tiny", dict(base.dims))):
            size = _longest(base.dims, elements[base.name], others, dim, given[dim], budget)
            if size > base.dims[dim] and {**others, dim: size} not in found.values():
                found[name] = {**others, dim: size}
    return found


def above_blocks(given: int) -> int:
    """One past the largest power of two below `given`: a block (always a power of two) that
    is too short for some length up to `given` is too short for this one. The interpreter's
    cost grows with the length (one program per row of a batch dim), so no longer."""
    return (1 << ((given - 1).bit_length() - 1)) + 1 if given > 2 else given


def _longest(base: dict[str, int], base_elements: int, others: dict[str, int], dim: str,
             given: int, budget: int) -> int:
    """The longest `dim` up to above_blocks(given) whose estimate fits `budget`, not a power
    of two."""
    per_unit = estimate(base, base_elements, {**others, dim: base[dim]})
    size = min(above_blocks(given), budget * base[dim] // max(1, per_unit))
    while size > 1 and estimate(base, base_elements, {**others, dim: size}) > budget:
        size -= 1
    if size > 2 and size & (size - 1) == 0:
        size -= 1
    return size


def settle(found: dict[str, dict[str, int]], probed: dict[str, Any], scalable: list[str],
           given: dict[str, int], cpu: list[Shape], size_tag: Callable[[int], str]
           ) -> tuple[list[Shape], dict[str, Any], list[str]]:
    """Per dim, the candidate that ran with that dim longest (tagged like any shape) and its
    probe entry under the shape's name, and a note for each dim the CPU shapes still leave
    short of its regime."""
    ran = {n: d for n, d in found.items() if n.startswith("wide_")
           and "error" not in probed[n] and not probed[n].get("estimated")}
    shapes: list[Shape] = []
    entries: dict[str, Any] = {}
    notes: list[str] = []
    for dim in scalable:
        mine = [(d[dim], n) for n, d in ran.items() if n.split(".")[0] == f"wide_{dim}"]
        if mine:
            name = max(mine, key=lambda m: (m[0], m[1] == f"wide_{dim}"))[1]
            entries[f"wide_{dim}"] = probed[name]
            shapes.append(Shape(f"wide_{dim}", ran[name],
                                (size_tag(int(probed[name]["elements"])), "non-pow2")))
        reached = max([s.dims[dim] for s in cpu] + [m[0] for m in mine])
        if reached < min(above_blocks(given[dim]), REGIME):
            notes.append(f"On the CPU, {dim} reaches {reached} of the problem's {given[dim]}: "
                         f"a kernel wrong only above {reached} is caught on a GPU alone.")
    return shapes, entries, notes
