"""The candidate worker: runs INSIDE the sandbox, once per job (`python -m kgb.worker JOB_DIR`).

It loads the task's `inputs.py` (never its reference), imports the untrusted kernel, runs every
call of every case on inputs drawn on the device from the plan's seeds, gathers evidence (input
mutation, output aliasing and types, launches of the file's own kernels) and writes the outputs
as safetensors plus `result.json` into its output folder. It decides nothing: the trusted side
judges the outputs and reads the evidence. Everything verdict-relevant goes to files; stdout is
only a log."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from kgb import protocol as P
from kgb.bench.channel import ENV as CHANNEL_ENV
from kgb.bench.channel import STAGE_MARK, Channel
from kgb.bench.profiler import profile_call
from kgb.errors import gpu_memory_exhausted
from kgb.jsonfiles import write_json_atomic
from kgb.tasks.casegen import call_inputs, fingerprint, load_module, outputs_fingerprint
from kgb.worker import interpreter_fixes, interpreter_speed, precompile, timing
from kgb.worker.compile_clock import CompileClock, startup
from kgb.worker.cuda_on_cpu import disguised, patch_torch_cuda
from kgb.worker.errors import candidate_traceback, describe, error_kind
from kgb.worker.evidence import DispatchTrace, LaunchCounter
from kgb.worker.jit_globals import non_constexpr_globals
from kgb.worker.outputs import (
    aliases,
    as_items,
    held_inplace,
    mutated,
    out_of_room,
    poison_allocator,
    save_outputs,
    saved_copy,
    type_names,
)

# Every module the worker uses is imported above, before `kgb.worker.__main__` takes the
# worker's modules out of sys.modules: nothing below imports a worker module again.

# Captured before any candidate code exists in this process (threat 14).
_perf_counter = time.perf_counter


@dataclass
class _Progress:
    """What the worker has learnt so far; becomes the frozen WorkerResult at the end."""

    stage: str = "start"
    cases: list[P.CaseRecord] = field(default_factory=list)
    error: str | None = None
    error_kind: P.ErrorKind | None = None
    autotune_first_config: bool = False
    interpreter_fixes: tuple[str, ...] = ()
    timed: tuple[P.TimedCase, ...] = ()
    traceback_written: bool = False
    clock: CompileClock = field(default_factory=CompileClock)
    started: float = field(default_factory=time.perf_counter)
    out_dir: Path | None = None
    late: set[tuple[int, int]] = field(default_factory=set)  # (case, call) seen writing late
    late_check_s: float = 0.0  # time in the late-write re-reads and waits (settle)

    def result(self) -> P.WorkerResult:
        cases = tuple(_with_late(index, case, self.late) for index, case in enumerate(self.cases))
        return P.WorkerResult(self.stage, cases, self.error, self.error_kind,
                              self.autotune_first_config, self.interpreter_fixes, self.timed,
                              round(self.clock.now(), 3), round(self.late_check_s, 4))

    def report(self) -> None:
        """Rewrite progress.json: read by the host only if the job is stopped (a timeout)."""
        if self.out_dir is None:
            return
        note = P.Progress(self.stage, len(self.cases), round(self.clock.now(), 3),
                          round(time.perf_counter() - self.started, 3))
        try:
            write_json_atomic(self.out_dir / P.PROGRESS_FILE, P.to_json(note))
        except OSError:
            pass


def _with_late(index: int, case: P.CaseRecord, late: set[tuple[int, int]]) -> P.CaseRecord:
    if not any(i == index for i, _ in late):
        return case
    return replace(case, calls=tuple(replace(c, late_write=True) if (index, n) in late else c
                                     for n, c in enumerate(case.calls)))


@dataclass(frozen=True)
class _LateCheck:
    """A primary call's outputs, re-read after LATE_WRITE_WAIT_S (threat 13) while the next
    calls run instead of in a sleep of their own (issue 24: 1.2 s of a relu job's 2.5 s)."""

    case: int
    call: int
    outputs: tuple
    settled: str  # their fingerprint once the call returned and the device was synchronized
    due: float  # perf_counter() at which the wait is over


# Primary calls whose outputs may be held for their re-read at once, and their bytes: past
# either, the oldest waits in full before the next call, as every call did before (large
# outputs are not held beside the next case's inputs).
_MAX_PENDING = 8
_MAX_PENDING_BYTES = 256 << 20


def main(job_dir: Path) -> int:
    spec = P.read(P.JobSpec, job_dir / P.JOB_FILE, P.RESULT_MAX_BYTES)
    progress = _Progress()
    try:
        _run(spec, progress)
    except BaseException as exc:
        progress.error = describe(exc, spec.kernel_path)
        progress.error_kind = P.ErrorKind.GPU_MEMORY if gpu_memory_exhausted(exc) else \
            P.ErrorKind.CRASH
        _keep_traceback(spec, progress, exc)
    write_json_atomic(Path(spec.out_dir) / P.RESULT_FILE, P.to_json(progress.result()))
    return 0


# What in a kernel file makes its import register with torch.library (custom_op, triton_op,
# define + impl), which imports torch._dynamo: 1.7 s of CPU idle, 5-9 s on a loaded machine.
_DYNAMO_USERS = ("library", "triton_op", "custom_op", "_dynamo")


def needs_dynamo(kernel_path: str) -> bool:
    """Whether the candidate's import will pull torch._dynamo in (a text search: a miss only
    moves that import into the candidate's own run time, as for any module it imports)."""
    try:
        with open(kernel_path, "rb") as f:
            text = f.read(1 << 22).decode("utf-8", "replace")
    except OSError:
        return False
    return any(word in text for word in _DYNAMO_USERS)


def _preimport(kernel_path: str) -> None:
    """What the candidate's first launch or import would import otherwise, inside its run
    time: Triton's gluon, and torch._dynamo for a kernel that registers a torch.library op.
    Start-up, not the candidate's time. Other kernels no longer import Dynamo at all (1.7 s of
    CPU): the dispatch trace's modes opt out of the wrapper that imported it (evidence.py)."""
    if needs_dynamo(kernel_path):
        import torch._dynamo  # noqa: F401
    import triton

    try:
        import triton.experimental.gluon  # noqa: F401
    except ImportError:  # pragma: no cover - an older Triton
        pass


def _wait_for_slot() -> None:
    """A warm start (kgb/sandbox/_supervisor.py, point 8): the imports above ran while the
    slot's previous job did; nothing touches the candidate before the supervisor answers `G`
    on the channel's answer fd, which it does when the host says go, and nothing touches the
    device unless the host made the held sandbox a tenant of its GPU (`_ready_device`)."""
    if os.environ.get("KGB_HOLD") != "1":
        return
    try:
        answer_fd = int(os.environ[CHANNEL_ENV].split(",")[1])
    except (KeyError, ValueError, IndexError):
        return
    line = b""
    while not line.endswith(b"\n"):  # byte by byte: the rest of the fd is the Channel's
        chunk = os.read(answer_fd, 1)
        if not chunk:
            raise SystemExit(3)  # the supervisor is gone: nothing to run for
        line += chunk


def _ready_device(spec: P.JobSpec, environ: dict[str, str] | None = None) -> bool:
    """A held worker that the host made a tenant of its GPU from the start (KGB_HOLD_DEVICE:
    frozen through every other job's timed window, kgb/sandbox/subproc.py) makes its CUDA
    context and runs one profiler session on kgb's own op while the slot's previous job runs:
    the first session of a process costs ~4 s (CUPTI's start, measured on an H200,
    scripts/gpu/profile_cost.py), later ones ~5 ms, and a timed job profiles one call of each
    timeable case (D306). Start-up, not the candidate's time: nothing of it is imported yet.
    Whether it ran (False: not held as a tenant, not timed, or no GPU). Best effort: a failure
    here is left for the run to meet after `go`, where the CUDA context is made again; a worker
    ended here, before `go`, would leave a crash that is kgb's, not the candidate's."""
    env = os.environ if environ is None else environ
    if env.get("KGB_HOLD") != "1" or env.get("KGB_HOLD_DEVICE") != "1":
        return False
    if spec.interpreter or not any(profiles(spec, case) for case in spec.cases):
        return False
    try:
        torch.empty(1, device=spec.device)
        torch.cuda.synchronize()
        profile_call(lambda: torch.ones(1, device=spec.device).add_(1), torch.cuda.synchronize)
    except Exception:
        return False
    return True


def profiles(spec: P.JobSpec, case: P.CaseSpec) -> bool:
    """Whether one call of this case runs under the profiler (D306's kernel names): a case that
    may be timed, in a timed job on a GPU. `_ready_device` readies the profiler for it."""
    return spec.timing and case.timeable and spec.device.startswith("cuda")


def _run(spec: P.JobSpec, progress: _Progress) -> None:
    _preimport(spec.kernel_path)
    _ready_device(spec)
    _wait_for_slot()

    timing.capture()  # the timer's clocks, before the candidate exists (threat 14)
    progress.out_dir = Path(spec.out_dir)  # progress.json names each stage as it opens
    channel = Channel()  # the supervisor's clock and notary (fds it handed us)

    def stage(name: str) -> None:
        # Stage marks time the worker's steps on the supervisor's clock for kgb's own cost
        # (kgb.metrics.overhead) and name the stage a stopped job was in; they are a
        # performance record, never evidence.
        progress.stage = name
        channel.mark(f"{STAGE_MARK}{name}")
        progress.report()

    stage("runtime")  # Python, torch, triton and the worker imported
    if spec.device.startswith("cuda"):  # the CUDA context, made here so its cost is seen apart
        torch.empty(1, device=spec.device)
        torch.cuda.synchronize()
    stage("device")
    if spec.interpreter:
        progress.autotune_first_config = interpreter_fixes.keep_first_autotune_config()
        progress.interpreter_fixes = interpreter_fixes.apply()
        interpreter_speed.apply()  # its cost only: nothing a verdict reads changes
        patch_torch_cuda()  # CUDA-written kernels on the CPU (cuda_on_cpu.py)
    trace = DispatchTrace()
    counter = LaunchCounter(spec.kernel_path, trace)
    counter.install()
    progress.clock.install()
    progress.clock.announce_to(channel.compiling)
    if not spec.interpreter and spec.device.startswith("cuda") and precompile.enabled():
        precompile.install(progress.clock.interval, counter.compile_watch, precompile.workers())
    progress.report()
    # make_inputs only: the task's reference never enters this process (design rule 2).
    task_inputs = load_module(Path(spec.inputs_path), "kgb_task_inputs")

    startup("-")  # the run-time limit starts now, with the candidate's own code
    stage("import")
    try:
        with disguised(spec.interpreter):
            candidate = load_module(Path(spec.kernel_path), "kgb_candidate")
    except BaseException as exc:
        progress.error, progress.error_kind = describe(exc, spec.kernel_path), P.ErrorKind.COMPILE
        _keep_traceback(spec, progress, exc)
        return
    entry = candidate.__dict__.get(spec.entry)
    if not callable(entry):
        progress.error = f"the kernel file does not define a function {spec.entry!r}"
        progress.error_kind = P.ErrorKind.COMPILE
        return
    if spec.interpreter:
        interpreter_fixes.bind_builtin_aliases(candidate)
        uses = non_constexpr_globals(candidate)
        if uses:  # what compiling would have refused: the GPU run's verdict, predicted
            progress.error = uses[0].message(Path(spec.kernel_path).name)
            progress.error_kind = P.ErrorKind.COMPILE
            return
    # An imported KernelBench task (docs/tasks.md): the entry is the class ModelNew, built
    # once by the task's own inputs.py exactly as the judge builds the reference's Model (same
    # seed, same init inputs); its instance is then called like any entry function. Built
    # before any case, outside the dispatch trace: __init__ makes parameters, not answers.
    build_model = getattr(task_inputs, "build_model", None)
    if isinstance(entry, type) and callable(build_model):
        try:
            with disguised(spec.interpreter):
                entry = build_model(entry, spec.device)
        except BaseException as exc:
            progress.error = "building ModelNew failed: " + describe(exc, spec.kernel_path)
            progress.error_kind = error_kind(exc, spec.kernel_path)
            _keep_traceback(spec, progress, exc)
            return

    stage("cases")
    sync: Callable[[], None] = (torch.cuda.synchronize if spec.device.startswith("cuda")
                                else (lambda: None))
    runner = _CallRunner(spec, task_inputs, entry, counter, trace, sync, progress)
    for index, case in enumerate(spec.cases):
        progress.cases.append(runner.case(index, case))
        progress.report()
    runner.settle(None, last=True)  # the last primary call's wait, in full
    stage("timing")
    progress.report()
    if spec.device.startswith("cuda") and spec.timing:
        progress.timed = timing.timed_cases(spec, progress.cases, task_inputs, entry, channel)
    stage("done")


class _CallRunner:
    def __init__(self, spec: P.JobSpec, task_inputs: Any, entry: Callable,
                 counter: LaunchCounter, trace: DispatchTrace, sync: Callable[[], None],
                 progress: _Progress) -> None:
        self.spec, self.task_inputs, self.entry = spec, task_inputs, entry
        self.counter, self.trace, self.sync, self.progress = counter, trace, sync, progress
        self.pending: list[_LateCheck] = []  # oldest first
        # The case's primary outputs as saved, a copy no candidate code holds: what the
        # same-values and nudged calls' files are encoded against (kgb.encoding)
        self.primary_saved: tuple[torch.Tensor, ...] | None = None

    def settle(self, returned: tuple | None, last: bool = False) -> None:
        """Re-read the pending primary calls' outputs (threat 13), before the candidate runs
        again (`returned` None) and after each call (`returned`: what it returned). A change
        is a late write, unless it is seen right after a call that returned that same memory
        (an honest kernel reusing its output buffer wrote it; the buffer is that call's now).
        A check ends at its first re-read from `due` on with nothing changed. The first re-read
        comes after the outputs were saved, so a write that shaped what the judge reads is
        never excused. `last` (the cases are over, or too many are pending): sleep what is
        left of the wait, then re-read, excusing nothing."""
        if not self.pending:
            return
        began = _perf_counter()
        try:
            self._settle(returned, last)
        finally:  # the overhead split reads it (kgb/metrics/overhead.py)
            self.progress.late_check_s += _perf_counter() - began

    def _settle(self, returned: tuple | None, last: bool) -> None:
        if last:
            left = max(c.due for c in self.pending) - _perf_counter()
            if left > 0:
                time.sleep(left)
        self.sync()
        now = _perf_counter()  # before the re-reads: each re-read is at `now` or later
        tensors = tuple(t for t in (returned or ()) if isinstance(t, torch.Tensor))
        waiting = []
        for check in self.pending:
            if outputs_fingerprint(check.outputs) != check.settled:
                if returned is None or last or not aliases(tensors, check.outputs):
                    self.progress.late.add((check.case, check.call))
            elif now < check.due:
                waiting.append(check)
        self.pending = waiting

    def bound(self) -> None:
        """Hold at most _MAX_PENDING checks and _MAX_PENDING_BYTES of outputs: the oldest
        waits in full until both hold."""
        def held() -> int:
            return sum(o.nbytes for c in self.pending for o in c.outputs)

        while self.pending and (len(self.pending) > _MAX_PENDING or held() > _MAX_PENDING_BYTES):
            rest, self.pending = self.pending[1:], self.pending[:1]
            self.settle(None, last=True)
            self.pending = rest

    def case(self, index: int, case: P.CaseSpec) -> P.CaseRecord:
        if case.skip is not None:
            return P.CaseRecord(case.id, skipped=case.skip)
        calls: list[P.CallRecord] = []
        keep_alive: list[tuple] = []  # earlier calls' inputs: later ones land at new addresses
        try:
            for call_index, call in enumerate(case.calls):
                record, inputs = self.call(index, call_index, case, call)
                calls.append(record)
                keep_alive.append(inputs)
                if record.status == P.CaseStatus.RAISED and call.kind == P.CallKind.PRIMARY:
                    break  # the other calls would raise the same way
        finally:
            self.primary_saved = None
        return P.CaseRecord(case.id, tuple(calls))

    def call(self, case_index: int, call_index: int, case: P.CaseSpec,
             call: P.CallSpec) -> tuple[P.CallRecord, tuple]:
        spec = self.spec
        inputs = call_inputs(self.task_inputs, case.dims, case.dtype, case.mode, case.layout,
                             spec.layout_inputs, spec.seed_input, spec.device, call.seed,
                             call.perturb_seed, call.seed_value)
        base: dict[str, Any] = dict(index=call_index, kind=call.kind,
                                    input_fingerprint=fingerprint(inputs))
        originals = [t.clone() if isinstance(t, torch.Tensor) else None for t in inputs]
        held = held_inplace(inputs, spec.inplace)  # an in-place task's outputs-to-be
        poison_allocator(inputs, spec.device)
        self.settle(None)  # the previous primary call's outputs, before the candidate runs again
        self.counter.reset(ghost=call.kind == P.CallKind.GHOST)
        start = _perf_counter()
        # Only a case that may be timed needs the kernel names D306 compares (not --timing off)
        profile = profiles(spec, case) and call_index == case.profiled_call
        kernels: tuple[str, ...] = ()
        self.trace.start()
        try:
            if profile:  # the kernels seen while checking, against those seen while timing
                box: list = []
                profiled = profile_call(lambda: box.append(self.entry(*inputs)), self.sync)
                returned = box[0] if box else self.entry(*inputs)
                kernels = tuple(sorted(profiled.kernels))[:64] if profiled else ()
            else:
                with disguised(spec.interpreter):  # a CUDA-written kernel's view on the CPU
                    returned = self.entry(*inputs)
            self.sync()
        except BaseException as exc:  # the candidate's failure is a fact, whatever it is
            self.trace.stop()
            refused = self.counter.launch_evidence()  # a refused launch raises: keep why
            self.counter.reset()
            self.settle(())
            _keep_traceback(spec, self.progress, exc)
            return P.CallRecord(status=P.CaseStatus.RAISED, error=describe(exc, spec.kernel_path),
                                error_kind=error_kind(exc, spec.kernel_path), **base,
                                **refused), inputs
        torch_ops = self.trace.stop()
        wall_s = _perf_counter() - start
        launches = self.counter.count
        base.update(self.counter.launch_evidence())  # threat 34
        self.counter.reset()
        # In place, what the entry returned is not the answer: the declared inputs' memory is.
        items = held if spec.inplace else as_items(returned)
        self.settle(tuple(items))
        types = type_names(items)
        evidence: dict[str, Any] = dict(output_types=types, launches=launches, wall_s=wall_s,
                                        mutated_inputs=mutated(inputs, originals, spec.inplace),
                                        torch_ops=torch_ops, kernels=kernels,
                                        copy_ops=tuple(sorted(self.trace.copies)))
        if any(t != P.PLAIN_TENSOR for t in types):
            return P.CallRecord(status=P.CaseStatus.RETURNED, **base, **evidence), inputs
        outputs = tuple(items)
        settled = outputs_fingerprint(outputs) if call.kind == P.CallKind.PRIMARY else None
        settled_at = _perf_counter()
        metas = tuple(P.OutputMeta(str(o.dtype).removeprefix("torch."), tuple(o.shape),
                                   str(o.device)) for o in outputs)
        try:
            path = Path(spec.out_dir) / P.output_file(case_index, call_index)
            if call.kind == P.CallKind.PRIMARY and _encoded_against(case):
                copy = saved_copy(outputs)
                save_outputs(copy, path)
                self.primary_saved = copy  # only once its file holds it
            else:
                save_outputs(outputs, path, self.primary_saved if call.kind in _NEAR_PRIMARY
                             else None, fill=call.kind == P.CallKind.GHOST)
        except Exception as exc:
            kind = P.ErrorKind.STORAGE if out_of_room(exc) else P.ErrorKind.RUNTIME
            return P.CallRecord(status=P.CaseStatus.RAISED, error_kind=kind,
                                error=f"outputs could not be saved: {str(exc)[:300]}", **base,
                                **evidence), inputs
        if settled is not None:  # work still landing after the call returned (threat 13)
            self.pending.append(_LateCheck(case_index, call_index, outputs, settled,
                                           settled_at + P.LATE_WRITE_WAIT_S))
            self.bound()
        found = aliases(outputs, inputs, spec.inplace)
        return P.CallRecord(status=P.CaseStatus.RETURNED, outputs=metas, aliases=found, **base,
                            **evidence), inputs


# Calls whose outputs should equal the primary's but for a few elements: their files are
# encoded against the primary's saved outputs (kgb.encoding).
_NEAR_PRIMARY = frozenset({P.CallKind.SAME_VALUES, P.CallKind.NEAR_EQUAL})


def _encoded_against(case: P.CaseSpec) -> bool:
    return any(call.kind in _NEAR_PRIMARY for call in case.calls)


def _keep_traceback(spec: P.JobSpec, progress: _Progress, exc: BaseException) -> None:
    """The first error's traceback, trimmed to the candidate's frames, for the job folder."""
    if progress.traceback_written:
        return
    try:
        (Path(spec.out_dir) / P.TRACEBACK_FILE).write_text(
            candidate_traceback(exc, spec.kernel_path))
        progress.traceback_written = True
    except OSError:
        pass
