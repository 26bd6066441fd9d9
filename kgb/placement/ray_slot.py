"""The node side of a Ray run: one long-lived actor per device slot (a GPU Ray gave it, or one
CPU). It holds its device and runs its jobs there — one at a time, or `width` at once (--jobs N
on a GPU) under the GPU's timing lock as a local run's (kgb.runner.gpu_share) — through kgb's
own pipeline (kgb.runner.execute: layer 1, the candidate in kgb's sandbox, the trusted judge on
the same device), in a folder of its own on the node. It hands back the job's folder as files;
the host alone grades and writes reports. Ray isolates nothing: the sandbox does.

Warm (the run's --warm): the host gives a busy actor its next job while the current one runs
(kgb.placement.ray_host, one prepared ahead per place at most); the actor prepares it at once —
layer 1, its sandbox started and its worker importing, held (kgb.runner.execute.prepare_job, as
the local scheduler's warm board does) — and finishes it when the slot's lock frees. Its clocks
start then; every candidate still gets a fresh process in a fresh sandbox."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from kgb import protocol as P
from kgb.placement.files import Files, pack, unpack
from kgb.sandbox.base import Limits

# What a job's folder brings back to the host: every file the verdict rests on (JSON records
# and capped logs, never more than RETURN_CAP), and the worker's outputs as evidence while they
# fit in EVIDENCE_CAP — the judge compared them on the node already, the host grades without
# them, and on a fleet they would be most of the network's bytes (docs/scale.md).
RETURN_CAP = 256 << 20
EVIDENCE_CAP = 16 << 20
PLACE_POLL_S = 0.05  # how often a prepared job waiting for a place looks for its withdrawal


@dataclass(frozen=True)
class SlotSpec:
    """What every actor of a run shares (the host's JobContext, less what is node-local)."""

    run_id: str
    kind: str  # "cpu" or "cuda"
    sandbox: str  # the backend the host resolved: the same sandbox as a local run
    limits: Limits
    host_submission: str  # the submission's root on the host, to place kernel paths
    # A batch's other members on this board: (member key, its submission's root on the host);
    # the key is the member run's id, which the host names with each of its jobs
    more: tuple[tuple[str, str], ...] = ()
    static: bool = True
    timing: bool = True
    baselines: str = "all"
    cuda_graph: bool = False
    warm: bool = False  # prepare a job that arrives while the slot is busy (--warm)
    # Jobs at once on the slot (--jobs N): more than one share the GPU under its timing lock
    # (every timed window exclusive, the others frozen), as a local run's --jobs N
    width: int = 1
    # fit the limits' CPU share to this node: its cores over its jobs at once (GPUs x width),
    # as a local GPU run fits it to its host (kgb.runner.verify.fit_cpus_to_gpu_slots)
    fit_cpus: bool = False


@dataclass(frozen=True)
class Bundle:
    """The run's files, put in Ray's object store once: task folders by task id, and the
    unpacked submission."""

    tasks: dict[str, Files]
    submission: Files
    more: dict[str, Files] = field(default_factory=dict)  # other members' submissions, by key


@dataclass(frozen=True)
class Answer:
    """A finished job, as the actor hands it back."""

    files: Files  # the job folder, verdict.json excluded: the host grades
    left_out: tuple[str, ...]  # large outputs not brought back (judged on the node)
    node: str
    node_ip: str
    slot: str
    actor: str
    # The actor's seconds for this job (prepare, lock_wait, finish, pack; a performance
    # record for report.json's `ray` section, never evidence)
    seconds: dict[str, float] = field(default_factory=dict)
    # the job did not run here: the host withdrew it while it waited for a place (no files)
    withdrawn: bool = False


def job_key(member: str | None, task_id: str) -> str:
    """A job's name between the host and an actor: its batch member's key (none for the run's
    own jobs) and its task."""
    return f"{member or ''}/{task_id}"


class SlotActor:
    """Created through `ray.remote` by kgb.placement.ray_host with room for `width` running
    jobs, one prepared ahead for each, `stop` and `close` (kgb.placement.ray_host.concurrency)."""

    prepares_ahead = True  # the host may send a job per place ahead while they run (warm)

    def __init__(self, spec: SlotSpec, bundle: Bundle, name: str) -> None:
        if spec.width > 1 and spec.sandbox not in ISOLATING:  # the host refuses it first
            raise ValueError(f"width {spec.width} under {spec.sandbox}: members' references "
                             "would be readable across jobs")
        import ray

        self.name = name
        self.spec = spec
        self.slot = _claim_device(spec.kind, ray.get_gpu_ids())
        context = ray.get_runtime_context()
        self.node = context.get_node_id()
        self.node_ip = ray.util.get_node_ip_address()
        sweep_dead_folders()
        self.root = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{spec.run_id}-{os.getpid()}-"))
        self.gate = Gate(spec.width)  # the jobs running on this slot at once
        self.waiting = Waiting()  # jobs prepared ahead, not yet in a place: withdrawable
        self.cancel = threading.Event()
        self.stack = contextlib.ExitStack()
        self.stack.callback(shutil.rmtree, self.root, True)
        for task_id, files in bundle.tasks.items():
            unpack(files, self.root / "tasks" / task_id)
        unpack(bundle.submission, self.root / "submission")
        for key, files in bundle.more.items():
            unpack(files, self.root / "submissions" / _safe_key(key))
        self.ctx = self._context()
        # a batch member's context: its own submission and run folder, this slot's sandbox
        # backend, judges and cancel event
        self.members = {key: replace(self.ctx, run_id=key, out_dir=self._run_folder(key),
                                     submission_root=self.root / "submissions" / _safe_key(key))
                        for key, _ in spec.more}

    def _run_folder(self, key: str | None) -> Path:
        run = self.root / ("run" if key is None else f"run-{_safe_key(key)}")
        run.mkdir()
        return run

    def _context(self):
        from kgb.runner.execute import JobContext
        from kgb.runner.gpu_share import Shares
        from kgb.runner.judge_pool import JudgePool
        from kgb.runner.verify import device_peaks
        from kgb.sandbox.base import create_sandbox

        run = self._run_folder(None)
        sandbox = self.stack.enter_context(create_sandbox(self.spec.sandbox))
        judges = self.stack.enter_context(JudgePool(run / "refcache", run / "judges.log"))
        spec = self.spec
        # width > 1 on a timed GPU run: one timing lock for the slot's jobs, every member's
        shares = Shares.for_slots((self.slot,) * spec.width) if spec.timing else Shares()
        limits = node_limits(spec, os.cpu_count(), len(glob.glob("/dev/nvidia[0-9]*")))
        return JobContext(spec.run_id, run, sandbox, limits, self.root / "submission",
                          judges, cancel=self.cancel, static=spec.static,
                          peaks=device_peaks((self.slot,)), timing=spec.timing,
                          baselines=spec.baselines, cuda_graph=spec.cuda_graph,
                          shares=shares, tenants=self.root)

    def ready(self) -> tuple[str, str, str, str]:
        """(node id, node IP, slot, device name): the actor is up and holds its device."""
        return self.node, self.node_ip, self.slot, _device_name(self.slot)

    def run(self, job, member: str | None = None) -> Answer:
        """Run one job of the run (`member` None) or of a batch member's, by its key."""
        from kgb.runner.execute import JobCancelled, abandon_job, finish_job, prepare_job

        if self.cancel.is_set():
            raise JobCancelled(job.task.id)
        ctx = self.ctx if member is None else self.members[member]
        local = self._localize(job) if member is None else self._localize(job, member)
        prepared = None
        clock = _Seconds()
        if self.spec.warm and self.gate.full():  # the slot is busy: prepare while it runs
            prepared = prepare_job(local, ctx)
            prepared.ahead = True
            clock.lap("prepare")
            if not self._take_place(job_key(member, job.task.id)):  # withdrawn by the host
                abandon_job(prepared)
                if self.cancel.is_set():
                    raise JobCancelled(job.task.id)
                clock.lap("lock_wait")
                return Answer({}, (), self.node, self.node_ip, self.slot, self.name,
                              clock.laps, withdrawn=True)
        else:
            self.gate.enter()
        try:
            clock.lap("lock_wait")
            if self.cancel.is_set():
                if prepared is not None:
                    abandon_job(prepared)
                raise JobCancelled(job.task.id)
            if prepared is None:
                prepared = prepare_job(local, ctx)
                clock.lap("prepare")
            self._own_references(member)
            # its verdict stays here: the host grades the files
            finish_job(prepared, ctx)
            clock.lap("finish")
            job_dir = ctx.out_dir / "jobs" / job.task.id
            try:
                files, _ = pack(job_dir, RETURN_CAP, keep=lambda rel: rel != P.VERDICT_FILE
                                and not rel.endswith(".safetensors"))
                evidence, left = pack(job_dir, EVIDENCE_CAP,
                                      keep=lambda rel: rel.endswith(".safetensors"),
                                      optional=lambda _rel: True)
                files.update(evidence)
            finally:
                shutil.rmtree(job_dir, ignore_errors=True)
            clock.lap("pack")
            return Answer(files, left, self.node, self.node_ip, self.slot, self.name,
                          clock.laps)
        finally:
            self.gate.leave()

    def _take_place(self, key: str) -> bool:
        """A prepared job waits for a place; False if the host withdrew it first (or the run
        stopped): it then holds none."""
        withdrawn = self.waiting.add(key)
        entered = False
        while not entered and not withdrawn.is_set() and not self.cancel.is_set():
            entered = self.gate.enter(timeout=PLACE_POLL_S)
        if self.waiting.settle(key) or not entered:
            if entered:
                self.gate.leave()
            return False
        return True

    def withdraw(self, key: str | None = None) -> str | None:
        """Take back job `key` (None: the newest) if it still waits for a place here, for the
        host to run where a place freed first; its key, or None once it has one."""
        return self.waiting.withdraw(key)

    def _own_references(self, member: str | None) -> None:
        """Under a backend that does not hide this actor's folder from candidates (process),
        a batch member's candidate must not find — or plant — the reference outputs another
        member's job left in the slot's judge cache (same batch seed: the same files): the
        cache is emptied whenever the slot turns to another member's job, as a local batch
        gives each member its own cache there (kgb.runner.batch). docker and bwrap hide it:
        members share it, computed once per actor."""
        if self.spec.sandbox in ISOLATING or member == getattr(self, "_last_member", None):
            return
        shutil.rmtree(self.ctx.out_dir / "refcache", ignore_errors=True)
        self._last_member = member

    def _localize(self, job, member: str | None = None):
        """The host's job with this node's paths and this actor's device."""
        task = replace(job.task, folder=self.root / "tasks" / job.task.id)
        kernel = job.kernel
        if kernel is not None:
            host_root, root = self.spec.host_submission, self.root / "submission"
            if member is not None:
                host_root = dict(self.spec.more)[member]
                root = self.root / "submissions" / _safe_key(member)
            kernel = replace(kernel, path=root / kernel.path.relative_to(host_root))
        return replace(job, task=task, kernel=kernel, device=self.slot)

    def stop(self) -> None:
        """The run is stopping: the job in flight is killed as on a timeout (its sandbox's
        process tree, its judge) and no further job starts here."""
        self.cancel.set()

    def close(self) -> None:
        """Judges and sandbox closed, the node's folder removed."""
        self.cancel.set()
        with self.gate.whole():
            self.stack.close()


def node_limits(spec: SlotSpec, cpu_count: int | None, node_gpus: int) -> Limits:
    """The run's limits with the CPU share fitted to this node where the spec asks: its cores
    over the jobs it runs at once (one actor per GPU, `width` jobs each), never below the
    run's."""
    if not spec.fit_cpus or not cpu_count:
        return spec.limits
    share = cpu_count // (max(1, node_gpus) * spec.width)
    return replace(spec.limits, cpus=max(spec.limits.cpus, float(share)))


class Waiting:
    """The jobs prepared ahead on a slot that wait for a place, by job key. The host may
    withdraw one until it takes its place, never after: `withdraw` and `settle` decide under
    one lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, threading.Event] = {}

    def add(self, key: str) -> threading.Event:
        with self._lock:
            self._jobs[key] = event = threading.Event()
            return event

    def withdraw(self, key: str | None = None) -> str | None:
        """Withdraw job `key` (None: the newest still waiting); its key, or None if it (or
        any) has a place already."""
        with self._lock:
            keys = [key] if key is not None else \
                [k for k, event in reversed(self._jobs.items()) if not event.is_set()][:1]
            for k in keys:
                event = self._jobs.get(k)
                if event is not None and not event.is_set():
                    event.set()
                    return k
            return None

    def settle(self, key: str) -> bool:
        """The job stops waiting (it has a place, or gives up): True if it was withdrawn."""
        with self._lock:
            event = self._jobs.pop(key, None)
            return event is not None and event.is_set()


class Gate:
    """At most `width` jobs at once on a slot (a lock when width is 1)."""

    def __init__(self, width: int = 1) -> None:
        if width < 1:
            raise ValueError(f"a slot's width is 1 or more, not {width}")
        self.width = width
        self._free = threading.Semaphore(width)
        self._count = threading.Lock()
        self._running = 0

    def full(self) -> bool:
        """Every place taken: a job arriving now waits for one."""
        with self._count:
            return self._running >= self.width

    def enter(self, timeout: float | None = None) -> bool:
        """Take a place (within `timeout` seconds: False if none freed)."""
        if not self._free.acquire(timeout=timeout):
            return False
        with self._count:
            self._running += 1
        return True

    def leave(self) -> None:
        with self._count:
            self._running -= 1
        self._free.release()

    def __enter__(self) -> Gate:
        self.enter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.leave()

    @contextlib.contextmanager
    def whole(self):
        """Every place at once: no job runs while it is held (closing the slot)."""
        for _ in range(self.width):
            self._free.acquire()
        try:
            yield
        finally:
            for _ in range(self.width):
                self._free.release()


class _Seconds:
    """Laps of one job on the actor, by name (a name given twice adds up)."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.monotonic()

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.laps[name] = round(self.laps.get(name, 0.0) + now - self._last, 4)
        self._last = now


FOLDER_PREFIX = "kgb-ray-"  # + run id, the actor's pid, a random tail
ISOLATING = ("docker", "bwrap")  # backends that hide the actor's folder (kgb.runner.batch)


def _safe_key(key: str) -> str:
    """A member key as a folder name (keys are the host's hex run ids; anything else is
    refused rather than placed)."""
    if not key or not all(c.isalnum() or c in "-_" for c in key):
        raise ValueError(f"member key {key!r} is not a plain name")
    return key


def sweep_dead_folders() -> list[Path]:
    """Remove the node folders of actors that died without closing (a killed raylet, a
    SIGKILL): those whose owner pid no longer runs on this node. Returns them."""
    import psutil

    removed = []
    for path in Path(tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*"):
        parts = path.name[len(FOLDER_PREFIX):].split("-")
        if len(parts) == 3 and parts[1].isdigit() and not psutil.pid_exists(int(parts[1])) \
                and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _claim_device(kind: str, gpu_ids: list) -> str:
    """The slot's kgb device name. Ray hides every other GPU from the actor through
    CUDA_VISIBLE_DEVICES; kgb addresses GPUs by their index in PCI order instead (the sandbox
    binds /dev/nvidiaN, the worker and judge get cuda:N), so the actor maps Ray's id to that
    index and leaves its children to choose through kgb's own device handling."""
    if kind == "cpu":
        return "cpu"
    if len(gpu_ids) != 1:
        raise RuntimeError(f"a kgb GPU slot needs exactly one GPU from Ray, got {gpu_ids}")
    try:
        index = int(gpu_ids[0])
    except ValueError:
        raise RuntimeError(f"Ray names this GPU {gpu_ids[0]!r}; kgb needs GPU indices "
                           "(start the node without UUIDs in CUDA_VISIBLE_DEVICES)") from None
    os.environ.pop("CUDA_VISIBLE_DEVICES", None)
    os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
    return f"cuda:{index}"


def _device_name(slot: str) -> str:
    """The slot's GPU by name, from NVML where it stands in for torch (kgb.runner.host_gpus):
    an actor runs kgb's host side for its GPU and need not import torch to start."""
    if slot == "cpu":
        return "cpu"
    from kgb.runner.host_gpus import gpu_name

    return gpu_name(int(slot.split(":")[1]))
