"""`kgb.Verifier(ray=ADDRESS)`: the Verifier's slots as long-lived Ray actors (issue 25).

A `RayPool` is kgb.placement.ray_host's RayPlacement whose actors outlive a run: they start
once, when the Verifier opens (one per GPU of the cluster, or one per CPU — `slots` of them),
and every request is a run of its own on the host (`run_verify` of a one-kernel submission:
plan, the host's grading, report) whose one job goes to an idle actor with that request's files
(the task's folder and the kernel), as a batch member's does. The actor runs it through kgb's
own pipeline on its node (layer 1, the sandbox, the trusted judge: the same jobs as
`kgb verify --ray`) and hands back the job's folder; the host grades it and answers the same
typed `JobResult` as the local Verifier.

Faults are RayPlacement's: a request whose actor, worker or node is lost runs again on another
actor (its result's entry lists the lost attempts: `entry["placement"]["retries"]`), and the
lost actor is replaced by a new one wherever the cluster has room; a request whose every
attempt was lost, a passed deadline or a cancel is a result
with status `infra_error`, never a verdict. A request's cancel stops its own job on the actor
(its sandbox killed as on a timeout); the actor serves the next request."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kgb.api import JobResult, _job, infra_result
from kgb.errors import BadInput, InfraError, Interrupted
from kgb.placement.files import Files, pack, unpack
from kgb.placement.ray_host import BUNDLE_CAP, READY_TIMEOUT_S, RayPlacement, _Actor
from kgb.placement.ray_slot import Answer, Bundle, SlotActor, SlotSpec, _safe_key
from kgb.sandbox.base import Limits
from kgb.serve.executor import DEADLINE_PASSED, ExecOptions, VerifyRequest

CANCELLED = "the request was cancelled"
WATCH_S = 0.2


class PoolSlotActor(SlotActor):
    """A SlotActor that takes each request's files with its job: every request is a member
    of its own (its submission folder, run folder and cancel event on the node), removed
    once its folder went back. The slot's sandbox backend and judges serve every request."""

    prepares_ahead = False  # one request at a time per actor: its lock is the timing lock

    def __init__(self, spec: SlotSpec, bundle: Bundle, name: str) -> None:
        super().__init__(spec, bundle, name)
        self.hosts: dict[str, str] = {}  # request key -> its submission's root on the host

    def run_request(self, job, key: str, host_root: str, task: Files, submission: Files,
                    limits: Limits) -> Answer:
        """One request's job (`key`: its run id on the host), with its files."""
        folder = self.root / "submissions" / _safe_key(key)
        tasks = self.root / "tasks" / job.task.id
        if not tasks.is_dir():  # the suite's folder, kept for the next request of the task
            tasks.parent.mkdir(exist_ok=True)
            part = Path(tempfile.mkdtemp(prefix=".part-", dir=self.root))
            unpack(task, part / "t")
            os.replace(part / "t", tasks)  # whole or not at all
            shutil.rmtree(part, ignore_errors=True)
        unpack(submission, folder)
        self.members[key] = replace(self.ctx, run_id=key, out_dir=self._run_folder(key),
                                    submission_root=folder, limits=limits,
                                    cancel=threading.Event())
        self.hosts[key] = host_root
        try:
            return self.run(job, key)
        finally:
            ctx = self.members.pop(key)
            self.hosts.pop(key, None)
            shutil.rmtree(folder, ignore_errors=True)
            shutil.rmtree(ctx.out_dir, ignore_errors=True)
            # this request's reference outputs (its own seed) are never used again
            shutil.rmtree(self.ctx.out_dir / "refcache" / job.task.id, ignore_errors=True)

    def _localize(self, job, member: str | None = None):
        task = replace(job.task, folder=self.root / "tasks" / job.task.id)
        kernel = job.kernel
        if kernel is not None and member is not None:
            root = self.root / "submissions" / _safe_key(member)
            kernel = replace(kernel, path=root / kernel.path.relative_to(self.hosts[member]))
        return replace(job, task=task, kernel=kernel, device=self.slot)

    def stop_request(self, key: str) -> None:
        """That request's job is killed as on a timeout; the actor serves the next."""
        ctx = self.members.get(key)
        if ctx is not None:
            ctx.cancel.set()


@dataclass
class _Request:
    cancel: threading.Event  # the caller's
    deadline: float
    run_cancel: threading.Event | None = None  # the run's (JobContext.cancel), once open
    run_id: str = ""
    why: str | None = None  # set when the pool stopped the run


class RayPool(RayPlacement):
    """Connect (`RayPool(address, device, slots)`), `start_pool(...)` once, then one run per
    request through `request(...)` and kgb.runner.verify.run_verify(placement=pool); `close`
    releases the actors and leaves the cluster."""

    def __init__(self, address: str, device: str, slots: int | None = None) -> None:
        super().__init__(address, device, jobs=1, timing=True)
        self.fits_cpus = False  # a request's limits come whole from its run on this host
        if slots is not None:  # at most one actor per GPU: timed runs take a GPU each
            if self.kind == "cuda" and slots > len(self.slots):
                if self._owned:
                    self.ray.shutdown()
                raise BadInput(f"slots={slots}: the cluster has {len(self.slots)} GPU(s), and "
                               "timed runs take one kernel per GPU at a time")
            self.slots = (self.device,) * slots
        self._runs: dict[str, tuple[str, Files, dict[str, Files]]] = {}
        self._local = threading.local()
        self._by_id: dict[int, _Request] = {}
        self._stopped = threading.Event()
        self._watcher: threading.Thread | None = None
        self._replaced = 0  # actors started in place of lost ones

    def start_pool(self, sandbox: str, static: bool) -> None:
        """The actors, started on the sandbox backend this host resolves (as a run's)."""
        from kgb.sandbox.base import create_sandbox

        with create_sandbox(sandbox) as box:
            name = box.name
        spec = SlotSpec(f"pool{secrets.token_hex(4)}", self.kind, name, Limits(), "",
                        static=static)
        self.start(spec, self.ray.put(Bundle({}, {})), PoolSlotActor, self._stopped)
        self._watcher = threading.Thread(target=self._watch, name="kgb-ray-pool", daemon=True)
        self._watcher.start()

    # ------------------------------------------------------------ one run per request
    @contextlib.contextmanager
    def request(self, cancel: threading.Event, deadline_s: float) -> Iterator[_Request]:
        """The calling thread's next run serves this request: it stops (the run's cancel set)
        when `cancel` is set or the deadline passes."""
        req = _Request(cancel, time.monotonic() + deadline_s)
        self._local.request = req
        try:
            yield req
        finally:
            self._local.request = None
            with self._cond:
                self._by_id.pop(id(req), None)
                for key in [k for k in list(self.retried) if k[0] == req.run_id]:
                    self.retried.pop(key, None)
                for key in [k for k in list(self.job_seconds) if k[0] == req.run_id]:
                    self.job_seconds.pop(key, None)  # a pool serves for hours: none kept

    def open(self, ctx, jobs, actor_class: type = SlotActor, more=()) -> None:
        """A request's run: its files are kept to go with its job (no actor starts)."""
        req: _Request | None = getattr(self._local, "request", None)
        if req is None or more:
            raise InfraError("a Ray pool runs one request at a time per run (kgb.Verifier)")
        every = list(jobs)
        tasks = {job.task.id: pack(job.task.folder, BUNDLE_CAP)[0] for job in every
                 if job.kernel is not None}
        with self._cond:
            if ctx.run_id in self._runs:  # 32-bit run ids: two live runs must never share
                raise InfraError(f"run id {ctx.run_id} is already in use; retry")  # files
            self._runs[ctx.run_id] = (str(ctx.submission_root),
                                      pack(ctx.submission_root, BUNDLE_CAP)[0], tasks)
            req.run_cancel, req.run_id = ctx.cancel, ctx.run_id
            self._by_id[id(req)] = req

    def release(self) -> None:
        """The end of a request's run (its run_verify's stack): its files are dropped; the
        actors stay for the next."""
        req: _Request | None = getattr(self._local, "request", None)
        if req is not None:
            with self._cond:
                self._runs.pop(req.run_id, None)

    def close(self) -> None:
        self._stopped.set()  # the watcher ends within WATCH_S; it has nothing to tear down
        try:
            RayPlacement.release(self)
        finally:
            if self._owned:
                self.ray.shutdown()

    def _watch(self) -> None:
        """Stops the runs whose caller cancelled or whose deadline passed (and every run
        once the pool closes)."""
        while True:
            closing = self._stopped.wait(WATCH_S)
            now = time.monotonic()
            with self._cond:
                live = list(self._by_id.values())
            for req in live:
                why = ("the Verifier closed" if closing else CANCELLED if req.cancel.is_set()
                       else DEADLINE_PASSED if now > req.deadline else None)
                if why is not None and req.run_cancel is not None:
                    req.why = req.why or why
                    req.run_cancel.set()
            if closing:
                return

    # ------------------------------------------------------------ lost actors replaced
    def _drop(self, actor: _Actor) -> None:
        """A lost actor is replaced (a run's are not: it ends soon; a pool serves for hours,
        and would otherwise shrink with every lost node until it refuses every request)."""
        super()._drop(actor)
        if self._stopped.is_set():
            return
        with self._cond:
            self._starting += 1
            self._replaced += 1
            name = f"kgb-slot-r{self._replaced}"
        threading.Thread(target=self._replace, args=(name,), name="kgb-ray-replace",
                         daemon=True).start()

    def _replace(self, name: str) -> None:
        ray, actor = self.ray, None
        try:
            actor = self._new_actor(name)
            ref = actor.handle.ready.remote()
            deadline = time.monotonic() + READY_TIMEOUT_S
            while not ray.wait([ref], timeout=WATCH_S)[0]:
                if self._stopped.is_set() or time.monotonic() > deadline:
                    raise TimeoutError(name)
            actor.node, actor.node_ip, actor.slot, device = ray.get(ref)
            if device != self.device_name:  # one Verifier judges one device model
                raise RuntimeError(device)
            with self._cond:
                if self._stopped.is_set():
                    raise RuntimeError("closed")
                self._actors.append(actor)
                self._live.add(actor.name)
                self._busy[actor.name] = 0
                actor = None  # the pool's now
        except Exception:  # no slot for it (the node is gone, the cluster is full): fewer slots
            pass
        finally:
            if actor is not None:
                try:
                    ray.kill(actor.handle)
                except Exception:
                    pass
            with self._cond:
                self._starting -= 1
                self._cond.notify_all()

    def _submit(self, actor: _Actor, job, ctx) -> Any:
        with self._cond:
            host_root, submission, tasks = self._runs[ctx.run_id]
        return actor.handle.run_request.remote(job, ctx.run_id, host_root, tasks[job.task.id],
                                               submission, ctx.limits)

    def _stop(self, actor: _Actor, ctx) -> None:
        actor.handle.stop_request.remote(ctx.run_id)


class RayExecutor:
    """kgb.serve.executor's Executor on a RayPool: each request a host-side run whose job
    runs on an actor."""

    def __init__(self, pool: RayPool, options: ExecOptions, workdir: Path) -> None:
        self.pool, self.options, self.workdir = pool, options, workdir

    def run(self, request: VerifyRequest, cancel: threading.Event) -> tuple[JobResult, ...]:
        folder = Path(tempfile.mkdtemp(prefix="job-", dir=self.workdir))
        try:
            return self._run(request, folder, cancel)
        finally:  # no result outlives its request
            shutil.rmtree(folder, ignore_errors=True)

    def _run(self, request: VerifyRequest, folder: Path,
             cancel: threading.Event) -> tuple[JobResult, ...]:
        from kgb.runner.verify import VerifyOptions, run_verify
        from kgb.suite.corpus import write_submission

        opts = self.options
        if request.submission is None:
            (task,) = request.tasks
            submission = write_submission(folder / "submission", {task: request.source or ""},
                                          name=f"kernel-{task}")
            only: tuple[str, ...] | None = (task,)
        else:
            submission, only = request.submission, None
        with self.pool.request(cancel, opts.deadline_s) as req:
            try:
                report = run_verify(VerifyOptions(
                    submission=submission, tasks_dir=opts.tasks, out_dir=folder / "run",
                    device=opts.device, sandbox=opts.sandbox, timeout_s=opts.timeout_s,
                    only=only, force=True, only_submitted=True, static=opts.static,
                    ray=self.pool.address), quiet=True, placement=self.pool)
            except BadInput:
                raise
            except (InfraError, Interrupted) as exc:
                return tuple(infra_result(t, req.why or exc.message[:300])
                             for t in request.tasks)
            except Exception as exc:  # kgb's own bug: never a verdict on the kernel
                return tuple(infra_result(t, f"kgb failed: {exc!r}"[:300])
                             for t in request.tasks)
        if req.why is not None:  # stopped: whatever finished is not this request's answer
            return tuple(infra_result(t, req.why) for t in request.tasks)
        by_task = {job["task"]: _job(job) for job in report["jobs"]}
        return tuple(by_task.get(t) or infra_result(t, "the run has no row for this task")
                     for t in request.tasks)
