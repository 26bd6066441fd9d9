"""`kgb tasks import-kernelbench`: KernelBench problem files (`class Model`, `get_inputs()`,
`get_init_inputs()`) become kgb tasks in the ordinary task format, answered by a kernel file
that defines `class ModelNew` (docs/tasks.md, "KernelBench problems").

Per file: parse it (parse.py, never imported here), write inputs.py (inputs_code.py) and
reference.py into a staging folder, run the task once on the CPU in a child process
(probe.py) to learn what runs, then write task.toml, check it loads, and move the folder into
place. A bad file costs only itself: its one-line error is reported and the others import."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgb.errors import BadInput, KgbError, quoted
from kgb.jsonfiles import Refused
from kgb.tasks.kernelbench import wide
from kgb.tasks.kernelbench.inputs_code import inputs_source
from kgb.tasks.kernelbench.parse import Problem, ProblemError, parse_problem
from kgb.tasks.kernelbench.probe import read_report
from kgb.tasks.kernelbench.task_files import Shape, reference_source, task_toml
from kgb.tasks.model import CATEGORIES, DTYPES

PROBE_TIMEOUT_S = 300.0
IMPORT_WORKERS = 8  # problem files imported at once (at most the machine's cores)
CPU_MAX_ELEMENTS = 1 << 20  # inputs larger than this are left to the GPU (gpu_only)
# Scaled sizes: small odd values (never powers of two), one per scaled constant in file order.
TINY = (5, 7, 3, 9, 11, 13, 6, 10)
ODD = (37, 29, 23, 41, 19, 31, 17, 43)
# A category from the problem's name when --category is not given; the first match wins.
_CATEGORY_WORDS = (
    ("Loss", ("loss", "entropy", "kldiv", "hinge", "triplet")),
    ("Convolution", ("conv",)),
    ("Pooling", ("pool",)),
    ("Normalization", ("norm", "softmax")),
    ("Activation", ("relu", "gelu", "sigmoid", "tanh", "swish", "silu", "elu", "softplus",
                    "softsign", "hardtanh", "mish", "selu")),
    ("MatrixMultiply", ("matmul", "matrix", "gemm", "bmm", "linear", "multiplication")),
    ("Reduce", ("sum", "mean", "max", "min", "argmax", "argmin", "prod", "reduction",
                "cumsum", "cumprod")),
)


@dataclass
class ImportReport:
    imported: list[tuple[str, Path]] = field(default_factory=list)  # (task id, folder)
    failed: list[str] = field(default_factory=list)  # one line per file


def import_problems(source: Path, out: Path, category: str | None = None,
                    level: int | None = None) -> ImportReport:
    """Every *.py problem under `source` (a file or a folder), as tasks under `out`."""
    if category is not None and category not in CATEGORIES:
        raise BadInput(f"--category {category!r} is not one of {', '.join(CATEGORIES)}")
    if source.is_file():
        files = [source]
    elif source.is_dir():
        files = sorted(p for p in source.rglob("*.py") if p.name != "__init__.py")
    else:
        raise BadInput(f"{quoted(source)}: no such file or folder; pass a KernelBench problem "
                       f"file or a folder of them")
    if not files:
        raise BadInput(f"{quoted(source)}: no .py problem files in it")
    # Files run side by side (each probe is a Python process running the problem on the
    # CPU, ~2 s of torch import alone): 8 problems took 60-80 s one at a time on a 16-core
    # GPU host. Files that become one task folder run one after another, in order.
    groups: dict[tuple[str, str], list[int]] = {}
    for index, path in enumerate(files):
        groups.setdefault(task_place(path, category), []).append(index)
    results: list[tuple[str, Path] | str] = [""] * len(files)

    def run_group(indices: list[int]) -> None:
        for index in indices:
            try:
                results[index] = import_problem(files[index], out, category, level)
            except KgbError as exc:
                results[index] = exc.message

    with ThreadPoolExecutor(max_workers=max(1, min(IMPORT_WORKERS, os.cpu_count() or 1))) \
            as pool:
        list(pool.map(run_group, groups.values()))
    report = ImportReport()
    for result in results:
        if isinstance(result, str):
            report.failed.append(result)
        else:
            report.imported.append(result)
    return report


def task_place(path: Path, category: str | None) -> tuple[str, str]:
    """(category, slug): the task folder a problem file becomes, out/CATEGORY/kb_SLUG."""
    chosen = category or guess_category(path.stem)
    return chosen, re.sub(r"[^a-z0-9]+", "_", path.stem.lower()).strip("_") or "problem"


def import_problem(path: Path, out: Path, category: str | None,
                   level: int | None) -> tuple[str, Path]:
    from kgb.tasks.loader import load_task

    problem = parse_problem(path)
    chosen, slug = task_place(path, category)
    task_id = f"{id_prefix(chosen)}.kb_{slug}"
    dims = _dims(problem)
    scalable = [d for d in dims if d not in problem.pinned_names]
    shapes = _candidate_shapes(dims, scalable)
    final = out / chosen / f"kb_{slug}"
    staging = out / f".staging-{chosen}-kb_{slug}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        (staging / "inputs.py").write_text(inputs_source(problem, tuple(dims)))
        (staging / "reference.py").write_text(reference_source(problem))
        probed = _probe(path, staging, {s.name: s.dims for s in shapes[1:] + shapes[:1]})
        shapes, notes = _settle(path, shapes, probed)
        shapes = shapes + _widen(path, staging, shapes, notes, probed, scalable, dims)
        first = next(probed["shapes"][s.name] for s in shapes
                     if not probed["shapes"][s.name].get("estimated"))
        dtype = first["dtype"]
        if dtype not in DTYPES:
            raise ProblemError(f"{quoted(path.name)}: its inputs are {dtype}; kgb tasks take "
                               f"{', '.join(DTYPES)}")
        compare = "exact" if first.get("out_integer") else "allclose"
        ran = [probed["shapes"][s.name] for s in shapes
               if not probed["shapes"][s.name].get("estimated")]
        modes = ["standard", "outlier"] if all(r.get("outlier_ok") for r in ran) else ["standard"]
        if modes == ["standard"]:
            notes.append("Outlier-mode inputs are not run: amplified inputs make this problem's "
                         "own answer non-finite.")
        (staging / "task.toml").write_text(task_toml(
            task_id, chosen, level or _level(path), problem, shapes, dtype, compare, modes,
            scalable if len(shapes) > 1 else [], notes))
        load_task(staging)  # what every later command will do: fail here, not there
        if final.exists():
            shutil.rmtree(final)  # a re-import replaces the earlier one
        final.parent.mkdir(parents=True, exist_ok=True)
        staging.rename(final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return task_id, final


def guess_category(stem: str) -> str:
    name = stem.lower()
    for category, words in _CATEGORY_WORDS:
        if any(w in name for w in words):
            return category
    return "Fusion"


# The bundled suite's id prefixes where they are not the category in snake case: an imported
# GEMM is `matmul.kb_…` beside the suite's `matmul.bmm`, never `matrix_multiply.kb_…`.
ID_PREFIX = {"MatrixMultiply": "matmul", "SpatialOps": "spatial"}


def id_prefix(category: str) -> str:
    return ID_PREFIX.get(category, _snake(category))


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _level(path: Path) -> int:
    """KernelBench keeps problems in level1/ .. level3/ folders; 1 elsewhere."""
    for part in reversed(path.parts[:-1]):
        match = re.fullmatch(r"level_?([123])", part.lower())
        if match:
            return int(match.group(1))
    return 1


def _dims(problem: Problem) -> dict[str, int]:
    """Integer literals among the constants get_inputs() reads (directly or through derived
    constants): the case's dims, with the problem's own values."""
    used = {n.id for n in _walk_names(problem)}
    by_name = {c.name: c for c in problem.constants}
    todo, seen = [u for u in used if u in by_name], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(by_name[name].deps)
    return {c.name: c.value for c in problem.constants if c.name in seen and not c.deps
            and type(c.value) is int and c.value > 0}


def _walk_names(problem: Problem) -> list[Any]:
    import ast

    return [n for n in ast.walk(problem.get_inputs) if isinstance(n, ast.Name)]


def _candidate_shapes(dims: dict[str, int], scalable: list[str]) -> list[Shape]:
    given = Shape("given", dict(dims) or {"given": 1}, ())
    shapes = [given]
    for name, sizes, tag in (("tiny", TINY, "tiny"), ("odd", ODD, "small")):
        scaled = dict(dims)
        for i, d in enumerate(scalable):
            scaled[d] = min(dims[d], sizes[i % len(sizes)])
        if scalable and all(scaled != s.dims for s in shapes):
            shapes.append(Shape(name, scaled, (tag,)))
    return shapes


def _probe(path: Path, staging: Path, shapes: dict[str, dict[str, int]]) -> dict[str, Any]:
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    env.pop("TRITON_INTERPRET", None)
    root = str(Path(__file__).resolve().parents[3])  # kgb importable in the child
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "kgb.tasks.kernelbench.probe", str(staging),
             json.dumps(shapes), str(CPU_MAX_ELEMENTS)], capture_output=True, text=True,
            errors="replace", timeout=PROBE_TIMEOUT_S, env=env, cwd=staging)
    except subprocess.TimeoutExpired:
        raise ProblemError(f"{quoted(path.name)}: running it on the CPU took over "
                           f"{PROBE_TIMEOUT_S:g} s; make its sizes smaller or check it "
                           f"for a hang") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
        why = last[-1][:200] if last else f"exit code {done.returncode}"
        raise ProblemError(f"{quoted(path.name)}: running it failed ({why}); check that "
                           f"Model(*get_init_inputs())(*get_inputs()) runs on the CPU")
    try:
        return read_report(lines[-1], shapes)
    except Refused as exc:  # the problem's code printed over the report, or forged one
        raise ProblemError(f"{quoted(path.name)}: {exc.message}; the file must not print "
                           f"after kgb's probe (at exit) or write a report of its own") from None


def _widen(path: Path, staging: Path, shapes: list[Shape], notes: list[str],
           probed: dict[str, Any], scalable: list[str], given: dict[str, int]) -> list[Shape]:
    """When the problem's own shape is GPU-only: CPU shapes that take each scaled dim as far
    as it goes (wide.py), probed like the others; their entries join `probed`, the dims still
    short of their regime join `notes`."""
    if not (shapes[0].name == "given" and shapes[0].gpu_only):
        return []
    cpu = [s for s in shapes if not s.gpu_only]
    elements = {s.name: int(probed["shapes"][s.name]["elements"]) for s in cpu}
    found = wide.candidates(cpu, elements, scalable, given, CPU_MAX_ELEMENTS)
    if len(found) == 1:
        return []
    more, entries, short = wide.settle(found, _probe(path, staging, found)["shapes"], scalable,
                                       given, cpu, _size_tag)
    probed["shapes"].update(entries)
    notes.extend(short)
    return more


def _settle(path: Path, shapes: list[Shape],
            probed: dict[str, Any]) -> tuple[list[Shape], list[str]]:
    """The shapes that ran, tagged; the given shape is kept as the problem states it."""
    if "init_mismatch" in probed:
        raise ProblemError(f"{quoted(path.name)}: get_init_inputs() could not be rebuilt from "
                           f"its constants ({probed['init_mismatch']}); return constants only")
    results = probed["shapes"]
    errors = {n: r["error"] for n, r in results.items() if "error" in r}
    if "given" in errors or (errors and len(errors) == len(results)):
        why = errors.get("given") or next(iter(errors.values()))
        raise ProblemError(f"{quoted(path.name)}: Model(*get_init_inputs())(*get_inputs()) "
                           f"fails: {why}; fix the problem file")
    notes = [f"Scaled case {n!r} was dropped: the problem fails at it ({why})."
             for n, why in errors.items()]
    kept = [s for s in shapes if s.name not in errors]
    smallest = min(kept, key=lambda s: results[s.name]["elements"])
    out = []
    for shape in kept:
        elements = results[shape.name]["elements"]  # estimated for a GPU-sized given shape
        pow2 = all(v & (v - 1) == 0 for v in shape.dims.values())
        size = shape.tags or (_size_tag(elements),)
        gpu_only = elements > CPU_MAX_ELEMENTS and shape is not smallest
        out.append(Shape(shape.name, shape.dims, (*size, "pow2" if pow2 else "non-pow2"),
                         gpu_only))
    return out, notes


def _size_tag(elements: int) -> str:
    if elements <= 1024:
        return "tiny"
    if elements <= 1 << 16:
        return "small"
    return "medium" if elements <= 1 << 22 else "large"
