"""`kgb.Verifier`: many verifications at once for a generation loop, async.

    async with kgb.Verifier(slots=4, device="cpu") as verifier:
        result = await verifier.verify("activation.relu", source)
        results = await verifier.verify_many([(task, src) for src in candidates])

Each verification runs the same pipeline as kgb.verify_kernel (in a child process of its own,
in a fresh sandbox) and returns the same `JobResult`. At most `slots` run at once; the rest
wait. Warm slots (`warm`, as `kgb verify --warm`; "auto": on where warm_pays says it saves time)
keep each slot's next child started and prepare the next waiting request ahead
(kgb.serve.warm); off, each request starts from nothing (kgb.serve.executor). A verification
kgb could not finish (its own failure, a passed deadline) is a result with
`status == "infra_error"` — drop that sample, never score it 0. A task id the suite does not
have raises BadInput at once. The same object serves `kgb serve` through `submit` (threads).

`ray="auto"|"local"|ADDRESS`: the slots are long-lived Ray actors instead, one per GPU of the
cluster (per CPU, or `slots`, on CPU runs), running the same sandboxed jobs on their nodes while
this process grades (kgb.placement.ray_pool); a request whose actor or node was lost runs again
on another (`result.entry["placement"]["retries"]` says so)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import shutil
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from kgb.api import DEFAULT_TASKS, JobResult
from kgb.errors import BadInput
from kgb.serve.ended import wait_ended
from kgb.serve.executor import ExecOptions, Executor, LocalExecutor, VerifyRequest
from kgb.serve.warm import WarmSlots

if TYPE_CHECKING:
    from kgb.placement.ray_pool import RayPool

WARM_MODES = ("auto", "on", "off")


def default_slots(device: str) -> int:
    """One verification per two CPU cores on the CPU (each runs a candidate worker and a
    judge process, each busy one core); one on a GPU (timed runs take a GPU each)."""
    return max(1, (os.cpu_count() or 2) // 2) if device == "cpu" else 1


def default_deadline(timeout_s: float | None, device: str) -> float:
    """The sandbox bounds the candidate's run by `timeout_s`; the judge and the compile budget
    come on top. Twice it plus a minute, past which kgb itself is stuck."""
    from kgb.runner.verify import DEFAULT_TIMEOUT_S

    return 2 * (timeout_s or DEFAULT_TIMEOUT_S["cpu" if device == "cpu" else "cuda"]) + 60.0


class Verifier:
    def __init__(self, slots: int | None = None, *, tasks: str | Path = DEFAULT_TASKS,
                 device: str = "auto", sandbox: str = "auto", timeout_s: float | None = None,
                 deadline_s: float | None = None, warm: str = "auto", static: bool = True,
                 executor: Executor | None = None, ray: str | None = None) -> None:
        """`static=False` is `kgb verify --static off` (research, and tests of the sandbox);
        `executor` replaces the child processes (tests), without warm slots. `ray`: "auto"
        (the running cluster), "local" (one started here) or a cluster's address — the slots
        are Ray actors (kgb.placement.ray_pool), one per GPU of the cluster (per CPU on CPU
        runs, or `slots` of them); warm slots are off there (the actors are the warm part)."""
        if warm not in WARM_MODES:
            raise BadInput(f"warm={warm!r}: give one of {', '.join(WARM_MODES)}")
        self._requested = (slots, Path(tasks), device, sandbox, timeout_s, deadline_s)
        self._warm_mode, self._static = warm, static
        self._executor = executor
        self._ray = ray
        self._pool_ray: RayPool | None = None
        self._warm: WarmSlots | None = None
        self.warm = False
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._workdir: Path | None = None
        self._cancels: set[threading.Event] = set()
        self._running: set[threading.Event] = set()  # set by each running request as it ends
        self._closing = False
        self._lock = threading.Lock()
        self.slots = 0

    # ------------------------------------------------------------------ lifetime
    def open(self) -> Verifier:
        from kgb.runner.verify import resolve_device, warm_pays
        from kgb.tasks.index import index_suite

        slots, tasks, device, sandbox, timeout_s, deadline_s = self._requested
        if self._ray is not None and self._executor is None:
            return self._open_ray()
        resolved = resolve_device(device)
        if slots is not None and slots < 1:
            raise BadInput(f"slots={slots}: give 1 or more")
        if resolved != "cpu" and (slots or 1) > 1:
            raise BadInput(f"slots={slots} on a GPU: timed runs take one kernel per GPU at a "
                           "time; use slots=1 (several GPUs: one Verifier per GPU for now)")
        self.slots = slots or default_slots(resolved)
        self.index = index_suite(tasks)
        self._workdir = Path(tempfile.mkdtemp(prefix="kgb-verifier-"))
        if self._executor is not None:  # tests' stand-in: no children to keep warm
            self._pool = concurrent.futures.ThreadPoolExecutor(self.slots,
                                                               thread_name_prefix="kgb-verify")
            return self
        options = ExecOptions(tasks=tasks, device=resolved, sandbox=sandbox, timeout_s=timeout_s,
                              deadline_s=deadline_s or default_deadline(timeout_s, resolved),
                              static=self._static)
        self.warm = self._warm_mode == "on" or (self._warm_mode == "auto" and warm_pays(
            resolved, ("cpu",) * self.slots if resolved == "cpu" else (resolved,)))
        if self.warm:
            self._warm = WarmSlots(options, self._workdir, self.slots)
        else:
            self._executor = LocalExecutor(options, self._workdir)
            self._pool = concurrent.futures.ThreadPoolExecutor(self.slots,
                                                               thread_name_prefix="kgb-verify")
        return self

    def _open_ray(self) -> Verifier:
        from kgb.placement.ray_pool import RayExecutor, RayPool
        from kgb.tasks.index import index_suite

        slots, tasks, device, sandbox, timeout_s, deadline_s = self._requested
        if slots is not None and slots < 1:
            raise BadInput(f"slots={slots}: give 1 or more")
        self.index = index_suite(tasks)
        assert self._ray is not None
        pool = RayPool(self._ray, device, slots)
        try:
            pool.start_pool(sandbox, self._static)
        except BaseException:
            pool.close()
            raise
        self._pool_ray = pool
        self.slots = len(pool.slots)
        self._workdir = Path(tempfile.mkdtemp(prefix="kgb-verifier-"))
        options = ExecOptions(tasks=tasks, device=pool.kind, sandbox=sandbox,
                              timeout_s=timeout_s,
                              deadline_s=deadline_s or default_deadline(timeout_s, pool.kind),
                              static=self._static)
        self._executor = RayExecutor(pool, options, self._workdir)
        self._pool = concurrent.futures.ThreadPoolExecutor(self.slots,
                                                           thread_name_prefix="kgb-verify")
        return self

    def close(self) -> None:
        """Every request ended (its child and sandbox torn down) before this returns, even
        when a signal interrupts it (that interrupt is raised again afterwards)."""
        with self._lock:
            self._closing = True
            for cancel in self._cancels:  # running children end now, queued ones never start
                cancel.set()
            running = list(self._running)
        if self._warm is not None:  # the same for warm slots, prepared children included
            self._warm.close()
            self._warm = None
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            # not the pool's join: an interrupted Thread.join lets kgb exit mid-teardown
            wait_ended(running)
            self._pool.shutdown(wait=True)  # its threads are idle by now
            self._pool = None
        if self._pool_ray is not None:  # its actors closed and killed, after their requests
            self._pool_ray.close()
            self._pool_ray = None
            self._executor = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def __enter__(self) -> Verifier:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Verifier:
        return await asyncio.to_thread(self.open)

    async def __aexit__(self, kind: type[BaseException] | None, value: BaseException | None,
                        tb: TracebackType | None) -> None:
        await asyncio.to_thread(self.close)

    # ------------------------------------------------------------------ work
    def check_task(self, task: str) -> None:
        from kgb.tasks.spec import unknown_task

        if task not in self.index:
            raise BadInput(unknown_task(task, self.index.ids()))

    def submit(self, request: VerifyRequest,
               cancel: threading.Event | None = None) -> concurrent.futures.Future:
        """The request queued for a slot: a Future of its tuple of JobResults."""
        if self._warm is None and (self._pool is None or self._executor is None):
            raise RuntimeError("the Verifier is not open: use it as a context manager")
        for task in request.tasks:
            self.check_task(task)
        event = cancel or threading.Event()
        if self._warm is not None:
            return self._warm.submit(request, event)
        assert self._pool is not None and self._executor is not None
        executor = self._executor

        def work() -> tuple[JobResult, ...]:
            ended = threading.Event()
            with self._lock:
                if self._closing:  # taken after close() cancelled the others
                    event.set()
                self._cancels.add(event)
                self._running.add(ended)
            try:
                return executor.run(request, event)
            finally:
                with self._lock:
                    self._cancels.discard(event)
                    self._running.discard(ended)
                ended.set()

        return self._pool.submit(work)

    async def verify(self, task: str, source: str) -> JobResult:
        cancel = threading.Event()
        future = self.submit(VerifyRequest((task,), source=source), cancel)
        try:
            return (await asyncio.wrap_future(future))[0]
        except asyncio.CancelledError:
            cancel.set()  # the child process ends instead of holding its slot
            future.cancel()
            raise

    async def verify_many(self, items: Iterable[tuple[str, str]]) -> list[JobResult]:
        """(task, source) pairs, verified `slots` at a time; results in the same order."""
        pairs = list(items)
        for task, _ in pairs:  # a bad id refuses the whole batch before anything runs
            self.check_task(task)
        return list(await asyncio.gather(*(self.verify(t, s) for t, s in pairs)))
