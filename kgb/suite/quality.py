"""Suite quality: does a task tell an honest kernel from a lazy one? (issue: the suite at scale)

For every task, on its CPU shapes (trusted side: the reference runs here):
- the reference's output changes with the seed (a task whose answer is a constant measures
  nothing);
- degenerate answers fail the task's own comparison: all zeros, a constant, an input passed
  through, a half-written output, and (float32 cases) the answer rounded through bfloat16;
- a task with no float32 dtype fails its answer one format down (float16 rounded through
  bfloat16, bfloat16 to float8 e4m3's 3 mantissa bits) on some CPU case, per dtype;
- an answer built from host glue alone (PyTorch's views and copies, then a Triton memcpy into
  the output: threat 32) is not passed, on any case (kgb.suite.glue_probe);
- the suite's own solution passes, run through Triton's CPU interpreter in this process with
  the same interpreter repairs the candidate worker applies;
- the solution is clean under the static layer;
- what the baselines are timed on is what a PyTorch user runs: a reference that computes in a
  wider dtype than its inputs brings a `baseline` function, which never computes in float64 and
  passes the task's comparison.

`python -m kgb.suite.quality [TASK_DIR ...] [--all-shapes]` prints one line per problem and
exits 1 when there is any. It sets TRITON_INTERPRET=1 itself, before Triton is imported."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")

import argparse
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from kgb.judge.inplace import as_judged
from kgb.judge.truth import as_outputs, compare_for_task
from kgb.tasks.casegen import generate_inputs, load_module
from kgb.tasks.loader import load_suite, load_task
from kgb.tasks.model import Case, Task


@dataclass(frozen=True)
class Problem:
    task: str
    what: str

    def __str__(self) -> str:
        return f"{self.task}: {self.what}"


class TaskProbe:
    """A task's inputs, reference and comparison, loaded once, on the CPU."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.inputs = load_module(task.inputs_path, f"kgb_q_inputs_{id(task)}")
        # an in-place task's reference and baseline run on clones (kgb.judge.inplace)
        self.reference = as_judged(load_module(task.reference_path,
                                               f"kgb_q_reference_{id(task)}"), task.inplace)

    def make(self, case: Case) -> tuple:
        return generate_inputs(self.inputs, case.shape.as_dict(), case.dtype, case.mode,
                               case.seed, "cpu", case.layout, self.task.strided_inputs)

    def expected(self, inputs: tuple) -> list[torch.Tensor]:
        with torch.no_grad():
            return as_outputs(self.reference.reference(*inputs))

    def judge(self, outputs: list, inputs: tuple, dtype: str) -> str | None:
        """None when `outputs` pass this task for `inputs`, else why not."""
        if self.task.compare == "statistical":
            problems = self.reference.check(tuple(outputs), inputs)
            return "; ".join(problems) if problems else None
        # the judge's own path, float64 truth included
        result = compare_for_task(self.task, self.reference, outputs, self.expected(inputs),
                                  inputs, dtype)
        return None if result.passed else result.message


def _zeros(ref: list, inputs: tuple, other: list) -> list | None:
    return [torch.zeros_like(r) for r in ref]


def _constant(ref: list, inputs: tuple, other: list) -> list | None:
    """The closed-form shortcut (threat 7): every element set to the mean answer seen on
    another seed's inputs — what a kernel that knows the input distribution could return."""
    out = []
    for r, o in zip(ref, other):
        if r.is_floating_point():
            finite = o.float()[torch.isfinite(o.float())]
            out.append(torch.full_like(r, float(finite.mean()) if finite.numel() else 0.0))
        else:
            out.append(torch.full_like(r, int(o.flatten()[0]) if o.numel() else 0))
    return out


def _passthrough(ref: list, inputs: tuple, other: list) -> list | None:
    tensors = [t for t in inputs if isinstance(t, torch.Tensor)]
    out = []
    for r in ref:
        same = next((t for t in tensors if t.numel() == r.numel() and r.numel() > 0), None)
        if same is None:
            return None
        out.append(same.reshape(r.shape).to(r.dtype).clone())
    return out


def _half_written(ref: list, inputs: tuple, other: list) -> list | None:
    out = []
    for r in ref:
        flat = r.clone().reshape(-1)
        flat[flat.numel() // 2:] = 0
        out.append(flat.reshape(r.shape))
    return out


def _bf16_rounded(ref: list, inputs: tuple, other: list) -> list | None:
    if not any(r.dtype == torch.float32 for r in ref):
        return None
    return [r.to(torch.bfloat16).to(r.dtype) if r.dtype == torch.float32 else r for r in ref]


def _mantissa(t: torch.Tensor, bits: int) -> torch.Tensor:
    """t rounded (half to even) to `bits` stored mantissa bits, its range kept."""
    m, e = torch.frexp(t.float())  # t = m * 2^e, 0.5 <= |m| < 1
    step = float(2 ** (bits + 1))
    return torch.ldexp(torch.round(m * step) / step, e).to(t.dtype)


def _format_down(ref: list) -> list | None:
    """The 16-bit answer one format down: float16 rounded through bfloat16 (3 mantissa bits
    fewer), bfloat16 with float8 e4m3's 3 mantissa bits (bfloat16 is the narrowest 16-bit
    format; the next one a kernel can compute in is fp8, whose range it would scale into)."""
    out = [r.to(torch.bfloat16).to(r.dtype) if r.dtype == torch.float16 else
           _mantissa(r, 3) if r.dtype == torch.bfloat16 else r for r in ref]
    if all(torch.equal(o, r) or bool(((o == r) | (o.isnan() & r.isnan())).all())
           for o, r in zip(out, ref)):
        return None  # exact in the lower format (e.g. fp4 values dequantized): nothing to fail
    return out


MUTANTS: dict[str, Callable[[list, tuple, list], list | None]] = {
    "all-zero": _zeros, "constant": _constant, "input passthrough": _passthrough,
    "half-written": _half_written, "bfloat16-rounded": _bf16_rounded,
}

# 16-bit-only tasks whose float16 bound cannot fail a bfloat16-rounded answer without failing
# an honest kernel (the honest spread, GPU included, is within 3x of it: docs/tasks.md,
# "16-bit-only float tasks"); their bfloat16 cases still get the float8 step.
HALF_OVERLAP = frozenset({
    "quantization.fp8_block_gemm", "quantization.w4a16_awq_gemm",
    "quantization.w4a16_gptq_gemm", "quantization.w8a16_int8_gemm",
    "fusion.w4a16_awq_swiglu_mlp",
})


def _format_down_applies(task: Task, dtype: str) -> bool:
    """The one-format-down probe is for tasks with no float32 dtype (float32 cases get the
    bfloat16-rounded probe), on their 16-bit cases."""
    if "float32" in task.dtypes or dtype not in ("float16", "bfloat16"):
        return False
    return not (dtype == "float16" and task.id in HALF_OVERLAP)


def check_format_down(probe: TaskProbe, cases: list[Case]) -> list[Problem]:
    """A 16-bit-only task must fail its answer one format down (_format_down), per dtype, on
    most of `cases` where the rounding changes it: a lower-precision kernel runs on every case
    of a run, and a bound it passes but for a lucky case or two lets it through most runs
    (seen: fp8_scaled_mm's old float16 bound failed bfloat16 rounding on 1 of 8 CPU cases).
    `cases`: every CPU shape (a tiny output's few elements can all sit inside the float64
    truth's forgiveness, kgb.judge.compare; seen: w4a16_awq_swiglu_mlp's bfloat16)."""
    tally: dict[str, list[int]] = {}  # dtype -> [caught, tried]
    total = {d: sum(c.dtype == d for c in cases) for d in ("float16", "bfloat16")}
    for case in cases:
        if not _format_down_applies(probe.task, case.dtype) or \
                2 * tally.get(case.dtype, [0])[0] > total[case.dtype]:
            continue  # not this probe's, or most cases already fail it
        inputs = probe.make(case)
        outputs = _format_down(probe.expected(inputs))
        if outputs is None:
            continue  # exact in the lower format
        seen = tally.setdefault(case.dtype, [0, 0])
        seen[0] += probe.judge(outputs, inputs, case.dtype) is not None
        seen[1] += 1
    lower = {"float16": "rounded through bfloat16", "bfloat16": "with e4m3's 3 mantissa bits"}
    return [Problem(probe.task.id, f"a {dtype} answer {lower[dtype]} (one format down) fails "
                                   f"only {caught} of {tried} CPU cases: the bound must fail "
                                   "it on most")
            for dtype, (caught, tried) in tally.items() if 2 * caught <= tried]


def _cases(task: Task, all_shapes: bool, seed: int = 20261122) -> list[Case]:
    from kgb.runner.plan import plan_cases

    cases = plan_cases(task, "cpu", seed)
    return [c for c in cases if all_shapes or "tiny" in c.shape.tags]


def check_degenerate(probe: TaskProbe, cases: list[Case]) -> list[Problem]:
    """Degenerate answers must fail, on at least one case each (a mutant that equals the right
    answer on one tiny case, e.g. a constant 1x1 output, is caught on another)."""
    problems = []
    caught = {name: False for name in MUTANTS}
    applicable = {name: False for name in MUTANTS}
    for case in cases:
        inputs = probe.make(case)
        ref = probe.expected(inputs)
        other = probe.expected(probe.make(replace(case, seed=case.seed + 1)))
        for name, mutate in MUTANTS.items():
            if name == "bfloat16-rounded" and case.dtype != "float32":
                continue
            outputs = mutate(ref, inputs, other)
            if name == "input passthrough" and probe.task.inplace:
                # in place, passing through is leaving the declared inputs as they were
                outputs = [inputs[i].clone() for i in probe.task.inplace]
            if outputs is None:
                continue
            applicable[name] = True
            if probe.judge(outputs, inputs, case.dtype) is not None:
                caught[name] = True
    for name in MUTANTS:
        if applicable[name] and not caught[name]:
            problems.append(Problem(probe.task.id, f"a {name} output passes every checked case"))
    return problems


def check_seed_matters(probe: TaskProbe, cases: list[Case]) -> list[Problem]:
    for case in cases:
        a = probe.expected(probe.make(case))
        b = probe.expected(probe.make(replace(case, seed=case.seed + 1)))
        if any(x.shape != y.shape or not torch.equal(x, y) for x, y in zip(a, b)):
            return []
    if probe.task.compare == "statistical":
        return []  # judged by check(), not against the reference's values
    return [Problem(probe.task.id, "the reference output is the same for two seeds")]


def check_solution(probe: TaskProbe, cases: list[Case]) -> list[Problem]:
    """Run solution.py under the interpreter, as the candidate worker would, on every case."""
    from kgb.anticheat.static import analyze, task_forbid
    from kgb.worker.interpreter_fixes import bind_builtin_aliases
    from kgb.worker.jit_globals import non_constexpr_globals

    task = probe.task
    source = task.solution_path.read_text()
    findings = analyze(source, "solution.py", task.entry, task_forbid(task), task.category)
    problems = [Problem(task.id, f"solution.py: {f.location()} {f.rule} {f.message}")
                for f in findings]
    module = load_module(task.solution_path, f"kgb_q_solution_{id(task)}")
    bind_builtin_aliases(module)
    problems += [Problem(task.id, f"solution.py: {use.message('solution.py')}")
                 for use in non_constexpr_globals(module)]  # compiling would refuse it
    entry = getattr(module, task.entry)
    for case in cases:
        inputs = probe.make(case)
        # In place: on clones (the judge compares against the untouched inputs); the declared
        # inputs' memory is the answer, as in the worker (kgb.worker.outputs.held_inplace).
        given = tuple(v.clone() if isinstance(v, torch.Tensor) else v for v in inputs)
        held = [given[i].detach() for i in task.inplace]
        try:
            returned = entry(*given)
            outputs = held if task.inplace else as_outputs(returned)
        except Exception as exc:
            problems.append(Problem(task.id, f"solution raised on {case.id}: "
                                             f"{type(exc).__name__}: {str(exc)[:200]}"))
            continue
        written = [j for j, (a, b) in enumerate(zip(given, inputs)) if isinstance(a, torch.Tensor)
                   and j not in task.inplace and not _same_bytes(a, b)]
        if written:
            problems.append(Problem(task.id, f"solution modifies input {written[0]} on "
                                             f"{case.id} (D201)"))
        why = probe.judge(outputs, inputs, case.dtype)
        if why is not None:
            problems.append(Problem(task.id, f"solution fails {case.id}: {why[:300]}"))
    return problems


def _same_bytes(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bit equality (NaN inputs equal themselves)."""
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(
        a.contiguous().view(-1).view(torch.uint8), b.contiguous().view(-1).view(torch.uint8))


def check_glue_only(probe: TaskProbe, cases: list[Case]) -> list[Problem]:
    """Threat 32: where the reference's answer can be built from glue alone, a candidate that
    builds it with PyTorch and carries it out with a Triton memcpy must be rejected (the
    task's glue policy) or wrong on every case; on one case it passes, it passes that shape."""
    from kgb.suite.glue_probe import glue_answer, verdict

    task = probe.task
    for case in cases:
        inputs = probe.make(case)
        answer = glue_answer(probe.reference.reference, inputs)
        if answer is None:
            continue  # the answer needs compute here
        if answer.record.torch_ops:
            ops = ", ".join(answer.record.torch_ops)
            return [Problem(task.id, f"glue probe defect: its rebuilt answer ran {ops}")]
        if not answer.record.copy_ops or verdict(answer, task.glue) is not None:
            continue  # no PyTorch copy: the Triton kernel moved every byte itself (honest)
        if probe.judge(answer.outputs, inputs, case.dtype) is None:
            how = ", ".join(answer.record.copy_ops) or "views"
            built = f" (rebuilding {', '.join(answer.built)})" if answer.built else ""
            return [Problem(task.id, f"a glue-only answer passes {case.id}: PyTorch's {how}"
                                     f"{built} and a Triton memcpy; the task's answer is a "
                                     f're-layout: set glue = "views" in task.toml')]
    return []


_WIDER = {"float16": (torch.float32, torch.float64), "bfloat16": (torch.float32, torch.float64),
          "float32": (torch.float64,)}


class _WiderSeen(TorchDispatchMode):
    """Notes whether any op produced a tensor of one of the `wider` dtypes."""

    def __init__(self, wider: tuple[torch.dtype, ...]) -> None:
        super().__init__()
        self.wider = wider
        self.seen: torch.dtype | None = None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in as_outputs(out):
            if isinstance(t, torch.Tensor) and t.dtype in self.wider and self.seen is None:
                self.seen = t.dtype
        return out


def check_baseline(probe: TaskProbe, cases: list[Case]) -> list[Problem]:
    """What PyTorch eager and torch.compile are timed on must be what a PyTorch user runs: a
    reference that computes in a wider dtype than its inputs (float64 for accuracy, float32 for
    half inputs) needs a `baseline` — timing the reference would time extra casts and wider
    arithmetic, and invent a speedup (seen on an H100: the suite's fp16 GEMM reference, computed
    in float32, was 11x slower than cuBLAS in fp16). A baseline never computes in float64 and
    passes the task's own comparison (it is the answer a user of PyTorch would get)."""
    baseline = getattr(probe.reference, "baseline", None)
    problems = []
    for case in cases:
        if case.dtype == "float64":
            continue
        inputs = probe.make(case)
        if baseline is None:
            wider = _WIDER.get(case.dtype, (torch.float64,))
            with _WiderSeen(wider) as mode, torch.no_grad():
                probe.reference.reference(*inputs)
            if mode.seen is not None:
                what = str(mode.seen).removeprefix("torch.")
                return [Problem(probe.task.id, f"reference.py computes in {what} for "
                                               f"{case.dtype} inputs: add a baseline() in "
                                               "the inputs' dtype for timing")]
            continue
        with _WiderSeen((torch.float64,)) as mode, torch.no_grad():
            outputs = as_outputs(baseline(*inputs))
        if mode.seen is not None:
            problems.append(Problem(probe.task.id, "baseline() computes in float64"))
            break
        why = probe.judge(outputs, inputs, case.dtype)
        if why is not None:
            problems.append(Problem(probe.task.id, f"baseline() fails {case.id}: {why[:300]}"))
    return problems


def check_task(task: Task, all_shapes: bool = False,
               shapes: frozenset[str] = frozenset()) -> list[Problem]:
    """Every check on the task's tiny CPU shapes (`all_shapes`: every CPU shape; `shapes`:
    only the CPU shapes of those names, e.g. the one being added)."""
    probe = TaskProbe(task)
    cases = [c for c in _cases(task, all_shapes or bool(shapes))
             if not shapes or c.shape.name in shapes]
    if not cases:
        named = f"shape named {', '.join(sorted(shapes))}" if shapes else "'tiny' shape"
        return [Problem(task.id, f"no CPU case with a {named}")]
    return (check_seed_matters(probe, cases) + check_degenerate(probe, cases)
            + check_format_down(probe, _cases(task, True))
            + check_glue_only(probe, cases) + check_baseline(probe, cases)
            + check_solution(probe, cases))


def prepare_interpreter() -> None:
    """What the candidate worker does before importing a kernel under the interpreter."""
    from kgb.worker.interpreter_fixes import apply, keep_first_autotune_config

    keep_first_autotune_config()
    apply()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgb.suite.quality")
    parser.add_argument("tasks", nargs="*", type=Path,
                        help="task folders (default: every task under --suite)")
    parser.add_argument("--suite", type=Path, default=Path(__file__).resolve().parents[2] / "tasks")
    parser.add_argument("--all-shapes", action="store_true",
                        help="every CPU shape, not only the tiny ones")
    parser.add_argument("--shapes", default="",
                        help="only the CPU shapes of these names, comma-separated")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    prepare_interpreter()
    tasks = ([load_task(p) for p in args.tasks] if args.tasks
             else list(load_suite(args.suite).values()))
    problems: list[Problem] = []
    for task in sorted(tasks, key=lambda t: t.id):
        try:
            found = check_task(task, args.all_shapes,
                               frozenset(n for n in args.shapes.split(",") if n))
        except Exception as exc:
            found = [Problem(task.id, f"quality check crashed: {type(exc).__name__}: {exc}")]
        problems += found
        print(f"{task.id}: {'ok' if not found else f'{len(found)} problem(s)'}", flush=True)
    for p in problems:
        print(f"PROBLEM {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
