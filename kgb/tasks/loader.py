"""Read and validate task folders: tasks/<Category>/<name>/{task.toml, reference.py, solution.py}.

Only the TOML is read here. inputs.py (make_inputs) is loaded by both workers; reference.py
(reference, check) only by the trusted judge: the oracle never enters the candidate's process."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from kgb.errors import TaskError
from kgb.tasks.cost_model import check_expression
from kgb.tasks.model import (
    CATEGORIES,
    COMPARE_MODES,
    DTYPES,
    GLUE_POLICIES,
    INPUT_MODES,
    PRECISIONS,
    SHAPE_TAGS,
    ShapeSpec,
    Task,
    Tolerance,
    ZeroPoint,
)

REQUIRED = ("id", "category", "source", "level", "direction", "entry", "description",
            "signature", "dtypes", "shapes", "tolerance", "cost")


def load_task(folder: Path) -> Task:
    toml_path = folder / "task.toml"
    try:
        raw = tomllib.loads(toml_path.read_text())
    except FileNotFoundError:
        raise TaskError(f"{toml_path}: missing; every task folder needs a task.toml") from None
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{toml_path}: invalid TOML ({exc}); fix the syntax") from None
    return _parse(raw, folder, toml_path)


def load_suite(root: Path) -> dict[str, Task]:
    """All tasks under `root`, keyed by id. Any invalid task fails the whole load: a suite that
    silently loses tasks would change every aggregate computed over it."""
    if not root.is_dir():
        raise TaskError(f"{root}: not a directory; pass --tasks pointing at a task suite")
    tasks: dict[str, Task] = {}
    for toml_path in sorted(root.rglob("task.toml")):
        task = load_task(toml_path.parent)
        if task.id in tasks:
            raise TaskError(f"{toml_path}: task id {task.id!r} also defined in "
                            f"{tasks[task.id].folder}; task ids must be unique")
        tasks[task.id] = task
    if not tasks:
        raise TaskError(f"{root}: no task.toml found; pass --tasks pointing at a task suite")
    return tasks


def _parse(raw: dict[str, Any], folder: Path, where: Path) -> Task:
    def fail(what: str) -> TaskError:
        return TaskError(f"{where}: {what}")

    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise fail(f"missing key(s) {', '.join(missing)}; see docs/formats.md")
    if raw["category"] not in CATEGORIES:
        raise fail(f"category {raw['category']!r} is not one of {', '.join(CATEGORIES)}")
    bad_dtypes = [d for d in raw["dtypes"] if d not in DTYPES]
    if bad_dtypes or not raw["dtypes"]:
        raise fail(f"dtypes must be a non-empty subset of {', '.join(DTYPES)}")
    compare = raw.get("compare", "allclose")
    if compare not in COMPARE_MODES:
        raise fail(f"compare {compare!r} is not one of {', '.join(COMPARE_MODES)}")
    modes = tuple(raw.get("modes", INPUT_MODES))
    if not modes or any(m not in INPUT_MODES for m in modes):
        raise fail(f"modes must be a non-empty subset of {', '.join(INPUT_MODES)}")
    for name in ("inputs.py", "reference.py"):
        if not (folder / name).is_file():
            raise fail(f"{name} missing beside task.toml; see docs/formats.md")

    shapes = tuple(_parse_shape(s, fail) for s in raw["shapes"])
    names = [s.name for s in shapes]
    if len(set(names)) != len(names):
        raise fail("shape names must be unique")
    tags = {t for s in shapes for t in s.tags}
    # An imported KernelBench problem has the shapes its size constants allow, which its
    # description states (kgb.tasks.kernelbench): the suite's rule is not for it to meet.
    imported = isinstance(raw.get("kernelbench"), dict)
    if ("tiny" not in tags or "non-pow2" not in tags) and not imported:
        raise fail("needs at least one shape tagged 'tiny' and one tagged 'non-pow2'")
    if not any(not s.gpu_only for s in shapes):
        raise fail("needs at least one shape the CPU interpreter can run (gpu_only = false)")

    tolerance = []
    for dtype in raw["dtypes"]:
        spec = raw["tolerance"].get(dtype)
        if spec is None:
            raise fail(f"[tolerance.{dtype}] missing; every listed dtype needs a tolerance")
        try:
            mismatch = spec.get("int_mismatch")
            tolerance.append((dtype, Tolerance(atol=float(spec["atol"]), rtol=float(spec["rtol"]),
                                               rel_l2=float(spec["rel_l2"]),
                                               int_atol=int(spec.get("int_atol", 0)),
                                               int_mismatch=None if mismatch is None
                                               else float(mismatch))))
        except KeyError as exc:
            raise fail(f"[tolerance.{dtype}] needs atol, rtol and rel_l2 (missing {exc})") from None
        mismatch = tolerance[-1][1].int_mismatch
        if mismatch is not None and not (0.0 <= mismatch < 0.5 and tolerance[-1][1].int_atol):
            raise fail(f"[tolerance.{dtype}] int_mismatch must be in [0, 0.5) and needs int_atol")

    zero_point = _parse_zero_point(raw, compare, fail)
    if zero_point is not None:
        tolerance = [(d, replace(t, zero_point=zero_point)) for d, t in tolerance]

    symbols = {sym for s in shapes for sym, _ in s.dims} | {"itemsize"}
    for key in ("flops", "bytes"):
        expr = raw["cost"].get(key)
        if not isinstance(expr, str):
            raise fail(f"[cost] {key} must be an expression string")
        problem = check_expression(expr, symbols)
        if problem:
            raise fail(f"[cost] {key}: {problem}")

    strided = raw.get("strided_inputs", [])
    if not isinstance(strided, list) or not all(isinstance(i, int) and i >= 0 for i in strided):
        raise fail("strided_inputs must be a list of input indices (0-based)")
    deterministic = raw.get("deterministic", True)
    if not isinstance(deterministic, bool):
        raise fail("deterministic must be true or false")
    strict = raw.get("strict_tolerance", False)
    if not isinstance(strict, bool):
        raise fail("strict_tolerance must be true or false")
    seed_input = (raw.get("random") or {}).get("seed_input")
    if seed_input is not None and not (isinstance(seed_input, int) and seed_input >= 0):
        raise fail("[random] seed_input must be the 0-based index of the seed argument")
    glue = raw.get("glue", "copies")
    if glue not in GLUE_POLICIES:
        raise fail(f"glue {glue!r} is not one of {', '.join(GLUE_POLICIES)} (\"views\": host "
                   "code may not copy tensor data, for a task whose answer is a re-layout)")
    inplace = _parse_inplace(raw, fail)
    extra = raw.get("precisions", [])
    if not isinstance(extra, list) or any(p not in PRECISIONS for p in extra):
        raise fail(f"precisions must be a list of {', '.join(PRECISIONS)} (what the task "
                   "produces or consumes beyond its dtypes)")
    if raw["category"] == "Random" and seed_input is None:
        raise fail("Random tasks need [random] seed_input (the index of the seed argument): "
                   "kgb checks that the same seed repeats and another seed differs")

    return Task(
        id=str(raw["id"]), category=raw["category"], source=str(raw["source"]),
        level=int(raw["level"]), direction=str(raw["direction"]), entry=str(raw["entry"]),
        description=str(raw["description"]).strip(), signature=str(raw["signature"]),
        dtypes=tuple(raw["dtypes"]), shapes=shapes, tolerance=tuple(tolerance),
        flops=raw["cost"]["flops"], bytes=raw["cost"]["bytes"], compare=compare, modes=modes,
        forbid=tuple(raw.get("forbid", ())), strided_inputs=tuple(strided),
        deterministic=deterministic, strict_tolerance=strict, seed_input=seed_input, glue=glue,
        inplace=inplace, extra_precisions=tuple(extra), folder=folder.resolve(),
    )


def _parse_inplace(raw: dict[str, Any], fail) -> tuple[int, ...]:
    """`inplace`: the 0-based indices of the inputs the entry updates in place (distinct, in
    the signature's range); the order is the order of the outputs they become."""
    from kgb.tasks.skeleton import entry_params

    value = raw.get("inplace", [])
    if not isinstance(value, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in value):
        raise fail("inplace must be a list of 0-based input indices (the inputs the entry "
                   "updates in place), e.g. inplace = [0, 2]")
    if len(set(value)) != len(value):
        raise fail(f"inplace lists an input twice: {value}")
    params = entry_params(str(raw["signature"]))
    if value and params and max(value) >= len(params):
        raise fail(f"inplace index {max(value)} is past the signature's {len(params)} "
                   f"argument(s)")
    if value and raw.get("compare", "allclose") == "statistical":
        raise fail("inplace is not supported on statistical (Random) tasks")
    return tuple(value)


def _parse_zero_point(raw: dict[str, Any], compare: str, fail) -> ZeroPoint | None:
    """`[zero_point]`: codes, zeros (output indices), group, range = [low, high],
    zeros_mismatch — every key, nothing else (docs/tasks.md, "Zero points")."""
    spec = raw.get("zero_point")
    if spec is None:
        return None
    keys = ("codes", "zeros", "group", "range", "zeros_mismatch")
    usage = ("[zero_point] needs codes and zeros (distinct 0-based output indices), group "
             "(> 0), range = [low, high] (integers, low < high) and zeros_mismatch (a share "
             "in [0, 0.5)), and nothing else")
    if not isinstance(spec, dict) or sorted(spec) != sorted(keys):
        raise fail(usage)

    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    bounds, share = spec["range"], spec["zeros_mismatch"]
    if not (all(whole(spec[k]) for k in keys[:3]) and isinstance(bounds, list)
            and len(bounds) == 2 and all(whole(b) for b in bounds)
            and isinstance(share, (int, float)) and not isinstance(share, bool)):
        raise fail(usage)
    if min(spec["codes"], spec["zeros"]) < 0 or spec["codes"] == spec["zeros"] or \
            spec["group"] <= 0 or bounds[0] >= bounds[1] or not 0.0 <= share < 0.5:
        raise fail(usage)
    if compare != "allclose":
        raise fail(f"[zero_point] needs compare = \"allclose\" (not {compare!r})")
    return ZeroPoint(codes=spec["codes"], zeros=spec["zeros"], group=spec["group"],
                     low=bounds[0], high=bounds[1], zeros_mismatch=float(share))


def _parse_shape(raw: dict[str, Any], fail) -> ShapeSpec:
    try:
        name, dims, tags = raw["name"], raw["dims"], tuple(raw["tags"])
    except KeyError as exc:
        raise fail(f"a [[shapes]] entry lacks {exc}") from None
    bad = [t for t in tags if t not in SHAPE_TAGS]
    if bad:
        raise fail(f"shape {name!r}: unknown tag(s) {bad}; tags are {', '.join(SHAPE_TAGS)}")
    if not dims or not all(isinstance(v, int) and v > 0 for v in dims.values()):
        raise fail(f"shape {name!r}: dims must be positive integers")
    return ShapeSpec(name=name, dims=tuple(dims.items()), tags=tags,
                     gpu_only=bool(raw.get("gpu_only", False)))
