"""The placement interface and its local backend (today's behaviour: the scheduler's threads
call the pipeline on this machine's slots)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from kgb.protocol import JobRecord

if TYPE_CHECKING:
    from kgb.runner.execute import JobContext
    from kgb.runner.plan import Job


class JobPlacement(Protocol):
    """Runs one planned job on one of its slots and gives back its record once the job's
    folder (ctx.out_dir/jobs/<task id>) holds every file the verdict rests on. The scheduler
    calls `run` from one thread per slot, at most `len(slots)` jobs at once. Raises
    JobCancelled when the run stops (ctx.cancel) and InfraError for kgb's own failures."""

    def run(self, job: Job, ctx: JobContext) -> JobRecord: ...


class LocalPlacement:
    """Jobs on this machine: `job.device` is the slot the scheduler chose (cpu, cuda:N)."""

    def run(self, job: Job, ctx: JobContext) -> JobRecord:
        from kgb.runner.execute import run_job

        return run_job(job, ctx)


LOCAL = LocalPlacement()
