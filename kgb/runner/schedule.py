"""Run a plan's jobs on device slots (design: Scale — one worker per GPU).

A slot is a device a job runs on: one per GPU given with `--devices` (one job per GPU at a time,
so a job's timings are never disturbed by another's kernels on the same GPU), or `--jobs N`
CPU slots for the interpreter. Each job still gets its own sandbox and its own judge; the
report lists jobs in plan order whatever order they finished in.

Stopping: Ctrl-C/SIGTERM in the main thread, or an infrastructure failure in any job, sets the
run's cancel event; every backend kills its job when it sees it (as on a timeout), a cancelled
job gets no verdict and no journal entry, and the jobs that finished are returned."""

from __future__ import annotations

import queue
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace

from kgb.errors import InfraError
from kgb.protocol import JobRecord
from kgb.runner.execute import JobCancelled, JobContext, run_job
from kgb.runner.plan import Job

Finished = tuple[Job, JobRecord]


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


def run_all(jobs: list[Job], slots: tuple[str, ...], ctx: JobContext, progress,
            reuse: Callable[[Job], JobRecord | None]) -> ScheduleOutcome:
    done: dict[int, Finished] = {}
    pending: list[tuple[int, Job]] = []
    for index, job in enumerate(jobs):
        kept = reuse(job)
        if kept is None:
            pending.append((index, job))
        else:
            done[index] = (job, kept)
            progress.start(job.task.id)
            progress.done(job.task.id, f"{kept.verdict.verdict.value} (resumed)")
    if len(slots) > 1:  # longest first: a long job started last would hold the run's tail
        pending.sort(key=lambda item: job_weight(item[1]), reverse=True)
    free: queue.SimpleQueue[str] = queue.SimpleQueue()
    for slot in slots:
        free.put(slot)

    def work(job: Job) -> JobRecord | None:
        slot = free.get()
        try:
            if ctx.cancel.is_set():
                return None
            progress.start(job.task.id)
            record = run_job(replace(job, device=slot), ctx)
            progress.done(job.task.id, record.verdict.verdict.value)
            return record
        except JobCancelled:
            raise
        except BaseException:
            ctx.cancel.set()  # before the slot is free again: no further job may start
            raise
        finally:
            free.put(slot)

    failure: InfraError | None = None
    interrupted: str | None = None
    pool = ThreadPoolExecutor(max_workers=len(slots), thread_name_prefix="kgb-job")
    futures: dict[Future, tuple[int, Job]] = {pool.submit(work, job): (index, job)
                                              for index, job in pending}

    def collect(future: Future) -> None:
        nonlocal failure
        index, job = futures[future]
        try:
            finished = future.result()
        except JobCancelled:
            return
        except InfraError as exc:
            failure = failure or exc
            ctx.cancel.set()
            return
        except Exception as exc:
            failure = failure or InfraError(f"internal error in job {job.task.id}: {exc!r}")
            ctx.cancel.set()
            return
        if finished is not None:
            done[index] = (job, finished)

    try:
        remaining = set(futures)
        while remaining:
            ready, remaining = wait(remaining, timeout=0.2, return_when=FIRST_COMPLETED)
            for future in ready:
                collect(future)
    except KeyboardInterrupt as exc:  # raised in the main thread by the signal handler
        interrupted = str(exc) or "SIGINT"
        ctx.cancel.set()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    for future in futures:  # jobs that ended while the run was stopping
        if future.done() and not future.cancelled() and futures[future][0] not in done:
            collect(future)
    return ScheduleOutcome(tuple(done[i] for i in sorted(done)), failure, interrupted)
