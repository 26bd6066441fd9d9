"""Run a plan's jobs on device slots (design: Scale — one worker per GPU).

A slot is a device a job runs on: one per GPU given with `--devices` (one job per GPU at a time),
`--jobs N` per GPU (timed: the slots of one GPU share its exclusive timing lock, the others
frozen during each timed window, kgb/runner/gpu_share.py, so a job's timings are never
disturbed by another's kernels on the same GPU), or `--jobs N` CPU slots for the
interpreter. Each job still gets its own sandbox and its own judge; the
report lists jobs in plan order whatever order they finished in.

Stopping: Ctrl-C/SIGTERM in the main thread, or an infrastructure failure in any job, sets the
run's cancel event; every backend kills its job when it sees it (as on a timeout), a cancelled
job gets no verdict and no journal entry, and the jobs that finished are returned.

A batch (`kgb verify A B C ...`) puts every member's jobs on one board (`run_works`): each job
carries its own run's context (folder, submission, judges), all share one cancel event, and
the slots never idle while any member still has a job (one-kernel submissions on 4 GPUs used
one GPU at a time when members ran one after another).

Running again: a job whose verdict depended on the jobs beside it (outputs that outgrew the cap
--jobs N shrank; the GPU's memory running out beside other jobs) runs again after the others,
one per device at a time over every device, at most once per pass (`_again_alone`)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kgb.errors import InfraError
from kgb.protocol import AHEAD_FILE, JobRecord
from kgb.runner.execute import (
    JobCancelled,
    JobContext,
    PreparedJob,
    abandon_job,
    finish_job,
    prepare_job,
    run_job,
)
from kgb.runner.plan import Job
from kgb.runner.verdict import out_of_gpu_memory, outgrew_outputs
from kgb.sandbox.base import Limits

if TYPE_CHECKING:
    from kgb.placement.base import JobPlacement

Finished = tuple[Job, JobRecord]
# A job and the context of the run it belongs to (a batch's members each have their own).
Work = tuple[Job, JobContext]
Pending = tuple[int, Job, JobContext]  # a job not yet run, with its place in the works

# Set by a process that prepares a job for a caller who says when it may run (kgb.serve.child
# in a warm kgb.Verifier slot): called between preparing a job and finishing it, so the job
# waits prepared (sandbox started, worker imported, held) and its clocks start after. It
# raises JobCancelled to drop the job unrun (its sandbox is abandoned).
before_finish: Callable[[PreparedJob, JobContext], None] | None = None


@dataclass(frozen=True)
class ScheduleOutcome:
    results: tuple[Finished, ...]  # plan order
    failure: InfraError | None = None
    interrupted: str | None = None  # the signal's name


def job_weight(job: Job) -> float:
    """A job's expected cost, for ordering only: its calls times the data they move (bytes,
    and FLOPs at 64 per byte) by the task's cost model. A job without a kernel weighs 0."""
    if job.kernel is None:
        return 0.0
    total = 0.0
    for case in job.cases:
        flops, nbytes = job.task.cost(case.shape.as_dict(), case.dtype)
        total += max(1, len(case.calls)) * (nbytes + flops / 64.0)
    return total


def board_order(pending: list[Pending]) -> list[Pending]:
    """The order jobs take slots in: longest first (a long job started last would hold the
    run's tail), except that one job of each task (and shard) goes before every second one.
    A batch's members answer the same tasks: started side by side, the four variants of one
    task each measured its baselines cold and computed its references (a baseline window
    freezes every job on the GPU); started after their task's first job, they find both in
    the run's stores (kgb.runner.baseline_cache, the reference cache)."""
    seen: set[tuple[str, tuple[int, int] | None]] = set()
    firsts: list[Pending] = []
    rest: list[Pending] = []
    for item in sorted(pending, key=lambda item: job_weight(item[1]), reverse=True):
        key = (item[1].task.id, item[1].shard)
        (rest if key in seen else firsts).append(item)
        seen.add(key)
    return firsts + rest


def run_all(jobs: list[Job], slots: tuple[str, ...], ctx: JobContext, progress,
            reuse: Callable[[Job], JobRecord | None],
            placement: JobPlacement | None = None) -> ScheduleOutcome:
    """Every job of one run on the slots; with a `placement` (Ray) each job runs where it
    places it, without warm starts here (its actors start their own)."""
    return run_works([(job, ctx) for job in jobs], slots, ctx.cancel, progress,
                     lambda work: reuse(work[0]), placement)


def run_works(works: list[Work], slots: tuple[str, ...], cancel: threading.Event, progress,
              reuse: Callable[[Work], JobRecord | None],
              placement: JobPlacement | None = None) -> ScheduleOutcome:
    """Every job on the slots, each with its own run's context (whose cancel must be
    `cancel`); results in the order of `works`."""
    if any(ctx.cancel is not cancel for _, ctx in works):
        raise ValueError("every job of one schedule shares its cancel event")
    done: dict[int, Finished] = {}
    pending: list[Pending] = []
    for index, work in enumerate(works):
        job, job_ctx = work
        kept = reuse(work)
        if kept is None:
            pending.append((index, job, job_ctx))
        else:
            done[index] = (job, kept)
            progress.start(job.task.id)
            progress.done(job.task.id, f"{kept.verdict.verdict.value} (resumed)")
    if len(slots) > 1:
        pending = board_order(pending)
    if placement is not None:  # it may keep more than one job in flight per slot (Ray, warm)
        slots = slots * getattr(placement, "depth", 1)
    board = _Board(pending, cancel, slots)
    failures: list[InfraError] = []
    beside: dict[int, int] = {}  # a finished job's most neighbours at once on its device

    def serve(number: int) -> None:
        """One slot: its jobs one at a time, each next one prepared while the current runs."""
        slot = slots[number]
        try:
            while not cancel.is_set():
                taken = board.take(number)
                if taken is None:
                    return
                index, job, ctx, prepared = taken
                progress.start(job.task.id)
                board.begin(number)
                if placement is not None:
                    record = placement.run(replace(job, device=slot), ctx)
                else:
                    if prepared is None:
                        prepared = prepare_job(replace(job, device=slot), ctx)
                    if before_finish is not None:
                        try:
                            before_finish(prepared, ctx)
                        except BaseException:
                            abandon_job(prepared)
                            raise
                    ahead = board.prepare_next(number) if ctx.warm else None
                    try:
                        record = finish_job(prepared, ctx)
                    finally:
                        if ahead is not None:  # in a slot thread: no signal interrupts
                            ahead.join()  # this join (only the main thread runs handlers)
                progress.done(job.task.id, record.verdict.verdict.value)
                beside[index] = board.end(number)
                board.finished(index, (job, record), done)
        except JobCancelled:
            return
        except InfraError as exc:
            failures.append(exc)
            cancel.set()
        except Exception as exc:
            failures.append(InfraError(f"internal error in job {board.current(number)}: "
                                       f"{exc!r}"))
            cancel.set()
        finally:
            board.release()
            ended[number].set()

    interrupted: str | None = None
    # Each slot says when it has ended (its sandbox torn down): Thread.join interrupted by the
    # signal's KeyboardInterrupt can return at once afterwards while the thread still runs
    # (CPython's join on an interrupted lock), and a daemon thread dies with kgb — a SIGTERM
    # left a running job's container behind (session 27).
    ended = [threading.Event() for _ in slots]
    threads = [threading.Thread(target=serve, args=(n,), name=f"kgb-job-{n}", daemon=True)
               for n in range(len(slots))]
    for thread in threads:
        thread.start()
    try:
        for event in ended:
            while not event.wait(0.2):
                pass
    except KeyboardInterrupt as exc:  # raised in the main thread by the signal handler
        interrupted = str(exc) or "SIGINT"
        cancel.set()
        for event in ended:
            event.wait()
    finally:
        board.abandon_all()
    if not failures and interrupted is None and placement is None:
        try:
            _again_alone(done, works, slots, cancel, progress, beside)
        except KeyboardInterrupt as exc:
            interrupted = str(exc) or "SIGINT"
            cancel.set()
        except JobCancelled:
            pass
        except InfraError as exc:
            failures.append(exc)
        except Exception as exc:  # a kgb bug: the run's failure, never a traceback
            failures.append(InfraError(f"internal error running a job again alone: {exc!r}"))
    return ScheduleOutcome(tuple(done[i] for i in sorted(done)),
                           failures[0] if failures else None, interrupted)


# The note a job run again carries in its facts (kgb.runner.grade reads AGAIN_FILE), which
# also says, on a resumed run, which pass it had: a job runs again at most once per pass.
ALONE_ON_DEVICE = "run again alone"
ALONE_AT_LAST = "run again truly alone"


def _again_alone(done: dict[int, Finished], works: list[Work], slots: tuple[str, ...],
                 cancel: threading.Event, progress, beside: dict[int, int]) -> None:
    """Jobs whose verdict depended on the jobs beside them run again, once, after the others
    (an honest job's verdict does not depend on --jobs or on how busy the machine is):

    - outputs that outgrew the output folder's cap, which --jobs N shrank to a share of the
      machine's memory (an H200's softmax under --jobs 4 outgrew 16 GiB, docs/gpu.md);
    - the GPU's memory ran out, the candidate's or the judge's (`failure` gpu_memory), while
      other jobs shared that GPU (a MoE block OOMed beside nine jobs on an H100).

    First one job per device at a time, over every device, with the output cap of a run of as
    many jobs as devices (JobContext.spread): 28 such jobs of a 4-GPU suite run no longer
    queue on one GPU. A job whose outputs outgrow even that runs last, truly alone, with the
    cap of a run of one job (JobContext.roomier). Each job's note says why it ran again."""
    devices = tuple(dict.fromkeys(slots))
    first: list[tuple[int, Job, JobContext]] = []
    for index in sorted(done):
        job, record = done[index]
        ctx = works[index][1]
        why = _why_again(record, ctx, slots, beside.get(index))
        if why is not None:
            first.append((index, job, replace(ctx, limits=_pass_limits(ctx, len(devices)),
                                              again=f"{ALONE_ON_DEVICE}: {why}")))
    if first:  # the main pass's idle judges, one per slot, would share the GPUs
        for judges in {id(c.judges): c.judges for _, _, c in first}.values():
            if judges is not None:
                judges.trim()
    _one_per_device(first, devices, done, cancel, progress)
    last: list[tuple[int, Job, JobContext]] = []
    for index in sorted(done):
        job, record = done[index]
        ctx = works[index][1]
        note = record.facts.note or ""
        if ctx.roomier is None or ALONE_AT_LAST in note or not outgrew_outputs(record.verdict) \
                or ctx.roomier.output_bytes <= _pass_limits(ctx, len(devices)).output_bytes:
            continue
        last.append((index, job, replace(ctx, limits=ctx.roomier, again=(
            f"{ALONE_AT_LAST}: its outputs outgrew the cap of one job per device"))))
    _one_per_device(last, devices[:1], done, cancel, progress)


def _pass_limits(ctx: JobContext, devices: int) -> Limits:
    """The limits of the one-job-per-device pass: the cap of a run of one job on one device,
    else of a run of one job per device (never alone's for several jobs at once)."""
    if devices == 1:
        return ctx.roomier or ctx.limits
    return ctx.spread or ctx.limits


def _why_again(record: JobRecord, ctx: JobContext, slots: tuple[str, ...],
               beside: int | None) -> str | None:
    """Why a finished job runs again on the one-per-device pass, or None. `beside`: the most
    jobs that ran beside it on its device (None: kept from a resumed run, which may have had
    as many as its device has other slots)."""
    note = record.facts.note or ""
    if ALONE_ON_DEVICE in note or ALONE_AT_LAST in note:
        return None  # it already ran again
    if outgrew_outputs(record.verdict):  # run again where there is more room (else alone)
        more = _pass_limits(ctx, len(set(slots))).output_bytes > ctx.limits.output_bytes
        return "its outputs outgrew the cap shared by the jobs at once" if more else None
    device = record.facts.device  # the slot it ran on (the host's plan.json)
    if device != "cpu" and out_of_gpu_memory(record.verdict):
        if (ctx.out_dir / record.facts.log_dir / AHEAD_FILE).exists():
            return "out of GPU memory beside its judge's torch.compile ahead"
        most = slots.count(device) - 1
        if beside is None and most > 0:
            return f"out of GPU memory beside up to {most} jobs"
        if beside:
            return f"out of GPU memory beside {beside} job{'s' * (beside > 1)}"
    return None


def _one_per_device(todo: list[tuple[int, Job, JobContext]], devices: tuple[str, ...],
                    done: dict[int, Finished], cancel: threading.Event, progress) -> None:
    """Run `todo` with one job per device at a time; raises the first failure (InfraError,
    JobCancelled) once every device's job has ended, KeyboardInterrupt after cancelling."""
    if not todo:
        return
    queue = deque(todo)
    lock = threading.Lock()
    errors: list[BaseException] = []

    def serve(number: int) -> None:
        try:
            while not cancel.is_set():
                with lock:
                    if not queue:
                        return
                    index, job, ctx = queue.popleft()
                _again(index, job, ctx, devices[number], done, cancel, progress)
        except BaseException as exc:  # kept for the caller; the other devices stop too
            errors.append(exc)
            cancel.set()
        finally:
            ended[number].set()

    used = min(len(devices), len(todo))
    ended = [threading.Event() for _ in range(used)]
    for number in range(used):
        threading.Thread(target=serve, args=(number,), name=f"kgb-again-{number}",
                         daemon=True).start()
    try:
        for event in ended:  # as run_works: a signal's KeyboardInterrupt lands here
            while not event.wait(0.2):
                pass
    except KeyboardInterrupt:
        cancel.set()
        for event in ended:  # each job's sandbox is torn down before its thread ends
            event.wait()
        raise
    real = [e for e in errors if not isinstance(e, JobCancelled)]
    if real or errors:
        raise (real or errors)[0]


def _again(index: int, job: Job, ctx: JobContext, device: str, done: dict[int, Finished],
           cancel: threading.Event, progress) -> None:
    if cancel.is_set():
        raise JobCancelled(job.task.id)
    progress.start(job.task.id)
    again = run_job(replace(job, device=device), ctx)
    progress.done(job.task.id, f"{again.verdict.verdict.value} ({ctx.again})")
    done[index] = (job, again)


class _Board:
    """The run's queue of jobs, and each slot's next job prepared ahead (a warm start:
    execute.prepare_job starts its sandbox, held). A slot that finds the queue empty takes
    another slot's prepared job rather than idle at the run's tail; prepared jobs nobody
    takes are abandoned (sandbox killed) when the run ends."""

    def __init__(self, pending: list[tuple[int, Job, JobContext]], cancel: threading.Event,
                 slots: tuple[str, ...]) -> None:
        self.queue = deque(pending)
        self.slots = slots  # slot number -> its device; CPU slots share one device name
        self.fresh = set(range(len(slots)))  # slots that have not taken their first job yet
        self.cancel = cancel
        self.lock = threading.Lock()
        self.ahead: dict[int, tuple[int, Job, JobContext, PreparedJob | None,
                                    BaseException | None]] = {}
        self.running: dict[int, str] = {}
        self.busy: dict[str, set[int]] = {}  # device -> its slots running a job now
        self.beside: dict[int, int] = {}  # slot -> the most other jobs on its device so far

    def take(self, slot: int) -> tuple[int, Job, JobContext, PreparedJob | None] | None:
        """The slot's next job: the one it prepared, the queue's next, or another slot's
        prepared one (its sandbox, held for another device, is abandoned)."""
        with self.lock:
            self.fresh.discard(slot)
            entry = self.ahead.pop(slot, None)
            if entry is None and self.queue:
                index, job, ctx = self.queue.popleft()
                entry = (index, job, ctx, None, None)
            if entry is None:
                for other in list(self.ahead):
                    entry = self.ahead.pop(other)
                    break
            if entry is None:
                return None
            index, job, ctx, prepared, error = entry
            self.running[slot] = job.task.id
        if error is not None:
            raise error
        if prepared is not None and prepared.job.device != self.slots[slot]:
            abandon_job(prepared)
            prepared = None
        return index, job, ctx, prepared

    def prepare_next(self, slot: int) -> threading.Thread | None:
        """Prepare the queue's next job for `slot` in the background; the thread to join."""
        with self.lock:  # not before every slot has its first job: the heaviest go first
            if self.fresh or not self.queue:
                return None
            index, job, ctx = self.queue.popleft()

        def prepare() -> None:
            prepared, error = None, None
            try:
                prepared = prepare_job(replace(job, device=self.slots[slot]), ctx)
                prepared.ahead = True
            except BaseException as exc:  # raised when the job is taken, by its taker
                error = exc
            with self.lock:
                self.ahead[slot] = (index, job, ctx, prepared, error)

        thread = threading.Thread(target=prepare, name=f"kgb-prepare-{slot}", daemon=True)
        thread.start()
        return thread

    def begin(self, slot: int) -> None:
        """The slot's job starts: it and the jobs running on its device count each other."""
        with self.lock:
            mates = self.busy.setdefault(self.slots[slot], set())
            mates.add(slot)
            self.beside[slot] = 0
            for mate in mates:
                self.beside[mate] = max(self.beside.get(mate, 0), len(mates) - 1)

    def end(self, slot: int) -> int:
        """The slot's job ended: the most other jobs that ran on its device at once beside it."""
        with self.lock:
            self.busy.get(self.slots[slot], set()).discard(slot)
            return self.beside.pop(slot, 0)

    def finished(self, index: int, result: Finished, done: dict[int, Finished]) -> None:
        with self.lock:
            done[index] = result

    def current(self, slot: int) -> str:
        with self.lock:
            return self.running.get(slot, "?")

    def release(self) -> None:
        """A slot that stops (cancelled, failed, or out of jobs): if the run is stopping,
        every prepared job ends; otherwise another slot may still take them."""
        if self.cancel.is_set():
            self.abandon_all()

    def abandon_all(self) -> None:
        with self.lock:
            entries = list(self.ahead.values())
            self.ahead.clear()
        for _, _, _, prepared, _ in entries:
            if prepared is not None:
                abandon_job(prepared)
