"""Turn (suite, submission, seed) into Jobs: one per task, each with its Cases."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from kgb.protocol import CONTIGUOUS, PADDED, TRANSPOSED, CallKind, CallSpec
from kgb.submission import Kernel, Submission
from kgb.tasks.model import Case, Task


@dataclass(frozen=True)
class Job:
    task: Task
    kernel: Kernel | None  # None: the submission has no kernel for this task (verdict missing)
    cases: tuple[Case, ...]
    device: str  # "cpu" or "cuda:<index>"
    # (index, count) for one shard of a task's cases run as a job of its own
    # (kgb.runner.shards); None: the whole task
    shard: tuple[int, int] | None = None

    @property
    def name(self) -> str:
        return self.task.id

    @property
    def folder(self) -> str:
        """The job's folder under OUT/jobs: the task's, or one of its shards' inside it."""
        if self.shard is None:
            return self.task.id
        return f"{self.task.id}/{shard_folder(self.shard[0])}"

    @property
    def entry(self) -> str:
        return (self.kernel.entry if self.kernel and self.kernel.entry else self.task.entry)


def shard_folder(index: int) -> str:
    return f"shard-{index + 1}"


def case_seed(run_seed: int, task_id: str, case_id: str) -> int:
    """Independent 63-bit seed per case, derived from the secret run seed."""
    digest = hashlib.sha256(f"{run_seed}:{task_id}:{case_id}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def plan_cases(task: Task, device: str, run_seed: int) -> tuple[Case, ...]:
    """shape × dtype × mode, plus — for tasks whose inputs may be non-contiguous — each shape
    in the first dtype with those inputs padded and transposed (a kernel that ignores strides
    fails whatever the dtype)."""
    kind = "cpu" if device == "cpu" else "cuda"
    cases = []

    def add(shape, dtype: str, mode: str, layout: str = CONTIGUOUS, full: bool = False) -> None:
        case_id = f"{shape.name}-{dtype}-{mode}" + ("" if layout == CONTIGUOUS else f"-{layout}")
        seed = case_seed(run_seed, task.id, case_id)
        cases.append(Case(case_id, shape, dtype, mode, seed, layout,
                          plan_calls(task, case_id, seed, mode, layout, run_seed, full)))

    shapes = task.shapes_for(kind)
    for shape in shapes:
        for dtype in task.dtypes:
            for mode in task.modes:
                # On the CPU the anti-caching calls run on the first shape only: caching pays
                # only where kernels are timed (the GPU, where every standard case gets them).
                # A Random task's seed calls run on every shape: a tiny shape has too few draws
                # for check_reseed to see two seeds' draws depend on each other.
                full = kind == "cuda" or shape == shapes[0] or task.seed_input is not None
                add(shape, dtype, mode, full=full)
        if task.strided_inputs:
            for layout in (PADDED, TRANSPOSED):
                add(shape, task.dtypes[0], task.modes[0], layout)
    return tuple(cases)


def unrun_shapes(task: Task, device: str) -> tuple[str, ...]:
    """The task's shapes this device does not run (gpu_only ones on the CPU), each as
    `name (dim=size, ...)`: a CPU verdict names them (issue 28: an imported KernelBench problem
    `passed` on tiny CPU shapes, nothing saying its own 4096 x 393216 shape never ran)."""
    run = set(task.shapes_for("cpu" if device == "cpu" else "cuda"))
    return tuple(f"{s.name} ({', '.join(f'{k}={v}' for k, v in s.dims)})"
                 for s in task.shapes if s not in run)


SEED_ARG_LIMIT = 2**31 - 1  # seeds handed to Random tasks' kernels stay below this


def plan_calls(task: Task, case_id: str, seed: int, mode: str, layout: str,
               run_seed: int, full: bool = True) -> tuple[CallSpec, ...]:
    """The calls of one case (layers 2 and 3, design.md), every answer judged against its own
    reference on the trusted side:

    - primary: the case's inputs;
    - standard-mode cases (`full`): fresh inputs of the same shape (an answer keyed by shape
      or address is wrong), the primary's values again in new storage (determinism, pointer
      keys), the primary's values with one element halved (keys sampled from the values);
    - Random tasks (`full` cases): the same seed again must repeat bit for bit, another seed
      must change the output and still pass the task's check;
    - every standard-mode case: a ghost call, with every Triton launch a no-op, whose output
      must be wrong (right means the Triton kernels did not compute it). It comes last, so
      autotuning has already chosen its configuration on real launches."""

    def derived(kind: str) -> int:
        return case_seed(run_seed, task.id, f"{case_id}/{kind}")

    calls = [CallSpec(CallKind.PRIMARY, seed)]
    standard = mode == "standard" and layout == CONTIGUOUS
    if task.seed_input is not None and full:
        calls += [CallSpec(CallKind.SAME_VALUES, seed),
                  CallSpec(CallKind.RESEED, seed, seed_value=derived("reseed") % SEED_ARG_LIMIT)]
    elif standard and full:
        calls += [CallSpec(CallKind.FRESH, derived("fresh")),
                  CallSpec(CallKind.SAME_VALUES, seed),
                  CallSpec(CallKind.NEAR_EQUAL, seed, perturb_seed=derived("near"))]
    if standard:
        calls.append(CallSpec(CallKind.GHOST, derived("ghost")))
    return tuple(calls)


def plan_jobs(suite: dict[str, Task], submission: Submission, device: str, run_seed: int,
              only: tuple[str, ...] | None = None) -> list[Job]:
    ids = list(only) if only else sorted(suite)
    return [Job(suite[tid], submission.kernel_for(tid), plan_cases(suite[tid], device, run_seed),
                device) for tid in ids]
