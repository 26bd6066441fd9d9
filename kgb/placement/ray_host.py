"""`kgb verify --ray ADDRESS`: the host side of a Ray run (kgb.placement.ray_slot is the node
side). The host plans, ships the run's files once (ray.put), starts one actor per slot — per
GPU (num_gpus=1), running --jobs N jobs at once there under the GPU's timing lock, or per
CPU — hands each job to an actor with a free place, writes the folder it gets back into
OUT/jobs/<task id>/ once, and grades it there (kgb.runner.grade): the host alone grades and
writes reports. Warm runs (--warm, SlotActor) keep one job more in flight per place — prepared
on the node while its places are taken (kgb.placement.ray_slot) — and a job goes to the least
busy actor, so a full actor gets one ahead only when no actor has a free place.

Faults: an actor or node lost mid-job (Ray's actor/worker/node errors) drops that actor and runs
the job again on another, at most MAX_RETRIES times; the lost attempts are recorded in the
job's placement.json (and report.json), never graded. A job whose every attempt was lost is
kgb's own failure (InfraError: exit 3, the finished jobs reported), never a verdict on the
kernel. Stopping (Ctrl-C, SIGTERM): each busy actor is told to kill its job's sandbox, then
every actor is closed and killed, and the driver leaves the cluster."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgb import protocol as P
from kgb.errors import BadInput, InfraError
from kgb.jsonfiles import write_json_atomic
from kgb.placement.files import pack, unpack
from kgb.placement.ray_slot import ISOLATING, Answer, Bundle, SlotActor, SlotSpec

INSTALL_HINT = "install the extra: pip install -e '.[ray]'"
MAX_RETRIES = 2  # a job runs at most 1 + MAX_RETRIES times
READY_TIMEOUT_S = 180.0  # an actor that has no slot by then (resources taken) is dropped
STOP_GRACE_S = 15.0  # after `stop`: time for the actor to kill its job's sandbox
CLOSE_GRACE_S = 60.0  # for every actor to close its judges and sandbox and remove its folder
WITHDRAW_S = 5.0  # for an actor to say whether it gave back a job waiting for a place
BUNDLE_CAP = 256 << 20


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise BadInput(f"--ray needs Ray, which is not installed; {INSTALL_HINT}") from None
    return ray


@dataclass
class _Actor:
    handle: Any
    name: str
    node: str = ""
    node_ip: str = ""
    slot: str = ""


class RayPlacement:
    """Connect with `RayPlacement(address, device, jobs, timing)` (before planning: it tells
    the run's device kind and slots), `open(ctx, jobs)` once the run's context exists, `run`
    from the scheduler's threads, `close` always."""

    _starting = 0  # actors starting in place of lost ones (kgb.placement.ray_pool)
    # Jobs of the run not yet handed to an actor (None: unknown, a pool's requests): at the
    # run's tail, no more than the actors, no job is sent to wait behind a busy actor's
    _unplaced: int | None = None
    width = 1  # jobs at once per actor (--jobs N on GPUs)
    fits_cpus = False  # the actors fit a GPU job's CPU share to their node (__init__)
    ahead = False  # a warm run: one job more per place, prepared ahead (open)
    # the actors can give back a prepared job that still waits for a place (SlotActor.
    # withdraw): jobs then go ahead to the run's end, each withdrawn to the first place that
    # frees elsewhere (open)
    withdraws = False
    _born = 0.0  # the run's clock (monotonic at the connect) for its jobs' sent_at/answered_at

    def __init__(self, address: str, device: str, jobs: int = 1, timing: bool = True,
                 cpus_given: bool = False) -> None:
        self.ray = import_ray()
        self.address = address
        began = self._born = time.monotonic()
        self._connect(address)
        self._connect_s = round(time.monotonic() - began, 4)  # `local`: the cluster's start
        resources = self.ray.cluster_resources()
        gpus = int(resources.get("GPU", 0))
        if device == "cuda" and not gpus:
            raise BadInput(f"--ray {address} --device cuda: the cluster has no GPU")
        self.kind = "cuda" if device == "cuda" or (device == "auto" and gpus) else "cpu"
        if jobs < 1:
            raise BadInput(f"--jobs {jobs}: give 1 or more")
        if self.kind == "cuda":  # one actor per GPU, --jobs N jobs at once on it (timed:
            count, self.width = gpus, jobs  # each timed window exclusive, as locally)
        else:  # one actor per CPU of the cluster, or --jobs N of them
            count, self.width = (jobs if jobs > 1 else max(1, int(resources.get("CPU", 1)))), 1
        self.device = "cpu" if self.kind == "cpu" else "cuda:0"
        self.slots: tuple[str, ...] = (self.device,) * (count * self.width)
        # A GPU job's CPU share is its node's cores over the node's jobs at once, fitted by
        # each actor on its node (this host's cores say nothing of a GPU node's), unless the
        # user set it (--limit cpus=)
        self.fits_cpus = self.kind == "cuda" and not cpus_given
        # What a resumed run must match: the CPU, or the GPU model Ray detected on the nodes
        # (its accelerator_type resource); the actors confirm it when they start.
        models = sorted(k.split(":", 1)[1] for k in resources if k.startswith("accelerator_type:"))
        if self.kind == "cuda" and len(models) > 1:
            raise BadInput(f"--ray {address}: the cluster mixes GPU models ({', '.join(models)});"
                           " one run judges one device model")
        self.identity = "cpu" if self.kind == "cpu" else "cuda:" + (models[0] if models else "?")
        self._actors: list[_Actor] = []
        self._busy: dict[str, int] = {}  # live actor -> its jobs in flight
        self._cond = threading.Condition()
        self.depth = 1  # the scheduler's threads per slot: 2 where jobs are sent ahead
        self._live: set[str] = set()
        self.retried: dict[tuple[str, str], tuple[P.Retry, ...]] = {}  # (run id, task)
        self._primary = ""  # the run id of the context open() was given; others are members
        # Where Ray's own time went (report.json's `ray` section; performance, never evidence):
        # the run's start (files packed and put, actors ready) and each job's seconds on the
        # actor and on the host, by (run id, task)
        self.start_seconds: dict[str, float] = {}
        self.job_seconds: dict[tuple[str, str], dict[str, float]] = {}

    def _connect(self, address: str) -> None:
        """Join the cluster (`local`: start one here), or use the connection of a caller
        that is already a Ray driver (an RL trainer), which is then left open."""
        self._owned = not self.ray.is_initialized()
        if not self._owned:
            return
        target = "local" if address == "local" else address
        try:
            self.ray.init(address=target, log_to_driver=False, logging_level=logging.ERROR,
                          include_dashboard=False if target == "local" else None,
                          configure_logging=True)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else repr(exc)
            raise BadInput(f"--ray {address}: cannot join the Ray cluster ({first}); start "
                           f"one with `ray start --head`, or pass --ray local") from None

    # ---------------------------------------------------------------- start and stop
    def open(self, ctx, jobs: Iterable, actor_class: type = SlotActor,
             more: Iterable[tuple[Any, Iterable]] = ()) -> None:
        """Ship the run's files once and start the actors; returns when they hold a slot.
        `more`: a batch's other members, (context, jobs) each, whose jobs the same actors run
        (kgb.runner.batch: every member on one board). `actor_class`: SlotActor, or a
        stand-in with its methods (scripts/bench_ray_driver.py's jobs that sleep)."""
        ray = self.ray
        self.retried = {}
        self._primary = ctx.run_id
        more = [(member, list(member_jobs)) for member, member_jobs in more]
        if self.width > 1 and ctx.sandbox.name not in ISOLATING:
            raise BadInput(f"--ray with --jobs {self.width} on GPUs needs --sandbox docker or "
                           f"bwrap: under {ctx.sandbox.name} jobs at once on one actor could "
                           "read each other's reference outputs")
        self.ahead = bool(ctx.warm and getattr(actor_class, "prepares_ahead", False))
        self.withdraws = self.ahead and hasattr(actor_class, "withdraw")
        self.depth = 2 if self.ahead else 1
        spec = SlotSpec(ctx.run_id, self.kind, ctx.sandbox.name, ctx.limits,
                        str(ctx.submission_root), static=ctx.static, timing=ctx.timing,
                        baselines=ctx.baselines, cuda_graph=ctx.cuda_graph,
                        warm=self.ahead, width=self.width, fit_cpus=self.fits_cpus,
                        more=tuple((m.run_id, str(m.submission_root)) for m, _ in more))
        every = [job for _, member_jobs in [(ctx, jobs), *more] for job in member_jobs]
        # an overcount (a resumed run's finished jobs) only keeps the tail rule off; an
        # undercount (a retry takes an actor again) only turns it on early: dispatch order,
        # never a verdict
        self._unplaced = len(every)
        began = time.monotonic()
        tasks = {job.task.id: pack(job.task.folder, BUNDLE_CAP)[0] for job in every
                 if job.kernel is not None}
        files = Bundle(tasks, pack(ctx.submission_root, BUNDLE_CAP)[0],
                       {m.run_id: pack(m.submission_root, BUNDLE_CAP)[0] for m, _ in more})
        packed = time.monotonic()
        bundle = ray.put(files)
        put = time.monotonic()
        self.start(spec, bundle, actor_class, ctx.cancel)
        self.start_seconds = {
            "connect": getattr(self, "_connect_s", 0.0), "pack": round(packed - began, 4),
            "put": round(put - packed, 4),
            "actors_ready": round(time.monotonic() - put, 4),
            "bundle_kb": round(sum(len(data) for group in
                                   (*files.tasks.values(), files.submission,
                                    *files.more.values()) for data in group.values()) / 1024, 1)}

    def start(self, spec: SlotSpec, bundle: Any, actor_class: type,
              cancel: threading.Event) -> None:
        """One actor per slot on `spec` and `bundle` (an object ref); returns when they hold
        a slot — those that got none in time are dropped, and none at all is an InfraError."""
        ray = self.ray
        need = ({"num_gpus": 1, "num_cpus": 1} if self.kind == "cuda" else {"num_cpus": 1})
        self._launch = (ray.remote(actor_class).options(
            max_concurrency=concurrency(spec), max_restarts=0, max_task_retries=0, **need),
            spec, bundle)
        for i in range(len(self.slots) // self.width):
            self._actors.append(self._new_actor(f"kgb-slot-{i}"))
        pending = {a.handle.ready.remote(): a for a in self._actors}
        deadline = time.monotonic() + READY_TIMEOUT_S
        names, failed = set(), []
        while pending and time.monotonic() < deadline and not cancel.is_set():
            done, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            for ref in done:
                actor = pending.pop(ref)
                try:
                    actor.node, actor.node_ip, actor.slot, name = ray.get(ref)
                except ray.exceptions.RayError as exc:  # e.g. that node lacks the sandbox
                    failed.append(_one_line(getattr(exc, "cause", None) or exc))
                    ray.kill(actor.handle)
                    continue
                names.add(name)
                with self._cond:
                    self._live.add(actor.name)
                    self._busy[actor.name] = 0
        for actor in pending.values():  # no slot for it in time: the run goes on without it
            ray.kill(actor.handle)
        if not self._live:
            why = f"the first failed: {failed[0]}" if failed else \
                f"none got a {self.kind} slot within {READY_TIMEOUT_S:g} s"
            raise InfraError(f"--ray {self.address}: no actor started; {why}")
        if len(names) > 1:
            raise InfraError(f"--ray {self.address}: the cluster mixes devices "
                             f"({', '.join(sorted(names))}); one run judges one device model")
        self.device_name = names.pop() if names else ""

    def _new_actor(self, name: str) -> _Actor:
        """An actor of the run started (not yet holding its slot: its `ready` says when)."""
        options, spec, bundle = self._launch
        return _Actor(options.remote(spec, bundle, name), name)

    def release(self) -> None:
        """Every actor of the run closed (judges, sandboxes, node folders) and killed."""
        ray = self.ray
        closing = [a.handle.close.remote() for a in self._actors if a.name in self._live]
        if closing:  # all at once: a judge pool may take seconds to close on a busy node
            try:
                ray.wait(closing, num_returns=len(closing), timeout=CLOSE_GRACE_S)
            except Exception:
                pass
        for actor in self._actors:
            try:
                ray.kill(actor.handle)
            except Exception:
                pass
        with self._cond:
            self._actors, self._live, self._busy = [], set(), {}

    def close(self) -> None:
        """The actors released; the driver leaves the cluster (a local one stops) unless the
        connection was the caller's."""
        try:
            self.release()
        finally:
            if self._owned:
                self.ray.shutdown()

    def __enter__(self) -> RayPlacement:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- jobs
    def run(self, job, ctx) -> P.JobRecord:

        started = time.monotonic()
        idle = 0.0  # its waits here for an actor: a local job's wait in the board's queue
        retries: list[P.Retry] = []
        withdrawn = 0  # times a full actor gave it back to run where a place freed first
        while len(retries) <= MAX_RETRIES:
            asked = time.monotonic()
            try:
                actor = self._take(ctx.cancel, job.task.id)
            except InfraError as exc:  # the last actor went with this job's lost attempts
                if not retries:
                    raise
                self.retried[(ctx.run_id, job.task.id)] = tuple(retries)
                raise InfraError(f"{exc}; job {job.task.id}'s lost attempts: " +
                                 "; ".join(r.reason for r in retries)) from None
            sent = time.monotonic()
            idle += sent - asked
            try:
                answer = self._wait(self._submit(actor, job, ctx), actor, ctx, job.task.id)
            except _Lost as lost:
                self._drop(actor)
                retries.append(P.Retry(actor.node, actor.slot, lost.reason))
                continue
            finally:
                self._give_back(actor)
            if answer.withdrawn:  # it waited on a full actor while another's place freed
                with self._cond:
                    if self._unplaced is not None:
                        self._unplaced += 1
                idle += time.monotonic() - sent
                withdrawn += 1
                continue
            with self._cond:
                now = time.monotonic()
                # sent_at / answered_at: on the run's clock (from the connect), so a run's
                # timeline shows where its places stood idle (its start, its tail)
                self.job_seconds[(ctx.run_id, job.task.id)] = {
                    "round_trip": round(now - sent, 4), "host_wait": round(idle, 4),
                    "sent_at": round(sent - self._born, 3),
                    "answered_at": round(now - self._born, 3),
                    **({"withdrawn": withdrawn} if withdrawn else {})}
            # the job's own time starts once it has an actor (lost attempts included)
            return self._finish(job, ctx, answer, tuple(retries), started + idle)
        self.retried[(ctx.run_id, job.task.id)] = tuple(retries)
        raise InfraError(f"job {job.task.id} was lost {len(retries)} times on Ray (" +
                         "; ".join(r.reason for r in retries) + ")")

    def _take(self, cancel: threading.Event, task_id: str) -> _Actor:
        from kgb.runner.execute import JobCancelled

        with self._cond:
            while True:
                if cancel.is_set():
                    raise JobCancelled(task_id)
                if not self._live and not self._starting:
                    raise InfraError("every Ray actor of the run was lost")
                # The run's tail (no more jobs left than places): a job waits here for the
                # first place to free rather than behind a full actor's jobs, as the local
                # board's idle slot takes another slot's prepared job (a job sent to an
                # actor cannot be taken back)
                tail = self._unplaced is not None and not self.withdraws and \
                    self._unplaced <= len(self._live) * self.width
                # one prepared ahead per place (as the local board's warm slots): with one
                # per actor, two of its places freeing close together left the second to
                # start its next job cold (run 26: 33 of 64 jobs cold on four GPUs, 21 on one)
                cap = self.width * (1 if tail else 1 + int(self.ahead))
                free = [a for a in self._actors
                        if a.name in self._live and self._busy[a.name] < cap]
                if free:  # the least busy: one ahead only where no actor has a free place
                    actor = min(free, key=lambda a: self._busy[a.name])
                    self._busy[actor.name] += 1
                    if self._unplaced is not None:
                        self._unplaced -= 1
                    return actor
                self._cond.wait(0.2)

    def _give_back(self, actor: _Actor) -> None:
        with self._cond:
            if actor.name in self._busy:
                self._busy[actor.name] -= 1
            self._cond.notify()
            full = self._full_beside(actor)
        if full is not None:  # outside the lock: a round trip to that actor
            try:
                self.ray.get(full.handle.withdraw.remote(), timeout=WITHDRAW_S)
            except Exception:  # gone or slow: its job runs there, as without withdrawal
                pass

    def _full_beside(self, freed: _Actor) -> _Actor | None:
        """At the run's tail (every job handed out), an actor holding a job that waits for a
        place while `freed` has one free: that job should run here instead (held lock)."""
        if not self.withdraws or self._unplaced != 0 or freed.name not in self._live or \
                self._busy.get(freed.name, 0) >= self.width:
            return None
        waiting = [a for a in self._actors
                   if a.name in self._live and self._busy[a.name] > self.width]
        return max(waiting, key=lambda a: self._busy[a.name]) if waiting else None

    def _drop(self, actor: _Actor) -> None:
        with self._cond:
            self._live.discard(actor.name)
        try:
            self.ray.kill(actor.handle)
        except Exception:
            pass

    def _submit(self, actor: _Actor, job, ctx) -> Any:
        """The job sent to `actor`: an object ref of its Answer."""
        if ctx.run_id == self._primary:
            return actor.handle.run.remote(job)
        return actor.handle.run.remote(job, ctx.run_id)

    def _stop(self, actor: _Actor, ctx) -> None:
        actor.handle.stop.remote()  # the actor kills its sandbox as on a timeout

    def _wait(self, ref, actor: _Actor, ctx, task_id: str) -> Answer:
        from kgb.runner.execute import JobCancelled

        ray, cancel = self.ray, ctx.cancel
        while not ray.wait([ref], timeout=0.2)[0]:
            if cancel.is_set():
                self._stop(actor, ctx)
                try:
                    ray.get(ref, timeout=STOP_GRACE_S)
                except Exception:
                    pass
                raise JobCancelled(task_id)
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:  # raised by kgb's pipeline on the node
            cause = getattr(exc, "cause", None)
            if isinstance(cause, JobCancelled) or cancel.is_set():
                raise JobCancelled(task_id) from None
            # kgb's own failure on that node (its sandbox, its disk): another node may do
            raise _Lost(f"{actor.name} on {actor.node_ip}: {_one_line(cause or exc)}") \
                from None
        except ray.exceptions.RayError as exc:  # the actor, its worker or its node is gone
            if cancel.is_set():
                raise JobCancelled(task_id) from None
            raise _Lost(f"{actor.name} on {actor.node_ip}: {type(exc).__name__}: "
                        f"{_one_line(exc)}") from None

    def _finish(self, job, ctx, answer: Answer, retries: tuple[P.Retry, ...],
                started: float) -> P.JobRecord:
        """Write the job's folder once, from the successful attempt alone, and grade it."""
        import shutil

        from kgb.runner.grade import grade
        from kgb.runner.journal import write_finished

        job_dir: Path = ctx.out_dir / "jobs" / job.task.id
        if job_dir.exists():
            shutil.rmtree(job_dir)
        unpacking = time.monotonic()
        unpack({k: v for k, v in answer.files.items() if k != P.PLACEMENT_FILE}, job_dir)
        key = (ctx.run_id, job.task.id)
        with self._cond:  # beside the host's round trip (run), the actor's seconds
            self.job_seconds[key] = {
                **answer.seconds, **self.job_seconds.get(key, {}),
                "unpack": round(time.monotonic() - unpacking, 4),
                "answer_kb": round(sum(len(b) for b in answer.files.values()) / 1024, 1)}
        placement = P.Placement(answer.node, answer.node_ip, answer.slot, answer.actor, retries)
        write_json_atomic(job_dir / P.PLACEMENT_FILE, P.to_json(placement), indent=1)
        if retries:
            self.retried[(ctx.run_id, job.task.id)] = retries
        graded = time.monotonic()
        record = grade(job_dir, ctx.out_dir)  # placement.json included
        now = time.monotonic()
        node = _node_phases(job_dir)
        # the job's own time, as a local job's: less its wait for the slot (a job prepared
        # ahead waits on its actor for the job before it)
        waited = node.waited_for_slot_s if node else None
        phases = P.HostPhases(node.static_s if node else 0.0, node.sandbox_s if node else 0.0,
                              node.judge_s if node else 0.0, round(now - graded, 4),
                              round(max(0.0, now - started - (waited or 0.0)), 4), waited)
        write_json_atomic(job_dir / P.PHASES_FILE, P.to_json(phases))
        write_finished(job_dir, record)  # last: its presence marks the job finished
        return record

    def summary(self, run_id: str | None = None) -> dict[str, Any]:
        """report.json's `ray` section: where the run ran, and the jobs (of the run `run_id`,
        a batch member's; None: every run) run more than once."""
        return {"address": self.address, "slots": len(self.slots),
                "retried": {task: [P.to_json(r) for r in retries]
                            for (run, task), retries in sorted(self.retried.items())
                            if run_id is None or run == run_id},
                "run": self.start_seconds,
                "jobs": {task: seconds for (run, task), seconds
                         in sorted(self.job_seconds.items()) if run_id is None or run == run_id}}


def concurrency(spec: SlotSpec) -> int:
    """An actor's Ray concurrency: its running jobs, one prepared ahead for each of them
    (warm), `stop`, `close` and `withdraw`."""
    return spec.width * (1 + int(spec.warm)) + 3


class _Lost(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = P.cut(reason, 300)


def _node_phases(job_dir: Path) -> P.HostPhases | None:
    try:
        return P.read(P.HostPhases, job_dir / P.PHASES_FILE, 1 << 16)
    except P.ProtocolError:
        return None


def _one_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return P.cut(lines[-1] if lines else type(exc).__name__, 200)
