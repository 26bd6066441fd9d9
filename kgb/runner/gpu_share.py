"""Several jobs in flight on one GPU, one exclusive timing lock (issue 24; docs/timing.md).

A timed kgb job keeps a GPU busy for ~2 s of its ~9.5 s; the rest (imports, correctness,
anti-cheat, compile, judge) overlaps with other jobs' as long as no timed window shares the
GPU. `GpuShare` is the trusted host's lock for one GPU: a job's supervisor asks for it before
each timed window (kgb/sandbox/_supervisor.py, point 9), the judge takes it for its baselines,
and while one holder has it every other job in flight on that GPU is frozen (SIGSTOP of its
sandbox's tree, or docker's cgroup freezer) and the GPU is drained before the grant. A frozen
job is told how long it was frozen before it is thawed: its run-time limit and `wall_s` leave
those seconds out, so a verdict never depends on another job's window.

Bounds: a holder keeps the lock at most `bound_s` (its run-time limit): then the window is
revoked (its supervisor records it so; no speedup counts there) and the others are thawed. A
job that ends holding it gives it back (`leave`, in the backend's finally)."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

DRAIN_BOUND_S = 2.0  # how long a grant waits for the frozen jobs' queued kernels to finish
DRAIN_POLL_S = 0.005
WAIT_POLL_S = 0.1
CHAIN_MAX = 8  # windows in a row that keep the other tenants frozen (GpuShare.release)
LONGEST = 12  # the longest windows named in timing_lock.json


class Freezable(Protocol):
    """A sandbox the host can stop and resume as a whole, and tell a line on its supervisor's
    stdin (the backends: kgb/sandbox/subproc.py, kgb/sandbox/docker.py)."""

    def freeze(self) -> bool: ...  # False: it would not stay frozen

    def thaw(self) -> None: ...

    def say(self, line: bytes) -> None: ...


@dataclass(frozen=True)
class Window:
    """One grant of the lock, on the host's clock (time.monotonic)."""

    holder: str
    start: float
    end: float
    exclusive: bool  # every other job was frozen and the GPU drained before the grant
    revoked: bool  # taken back at the holder's bound
    freeze_s: float = 0.0  # stopping the others, before the grant (a window's fixed cost)
    drain_s: float = 0.0  # then waiting for the GPU to show idle
    asked: float = 0.0  # when the holder asked for the lock (it waited until the freeze)
    waiting: int = 0  # holders already waiting for the lock when this one gave it back


class Tenant:
    """One job (or the judge) in flight on the shared GPU."""

    def __init__(self, name: str, box: Freezable | None) -> None:
        self.name, self.box = name, box
        self.frozen_since: float | None = None
        self.frozen_s = 0.0  # every second this tenant spent frozen (the host's backstop too)
        self.left = False
        self._lock = threading.Lock()  # a freeze, a thaw and the leaving, one at a time

    def freeze(self) -> bool:
        """Stop it whole; False if some of it would not stay stopped. One that has left is
        not stopped (nothing would thaw it)."""
        with self._lock:
            if self.box is None or self.left or self.frozen_since is not None:
                return True
            self.frozen_since = time.monotonic()
            try:
                return self.box.freeze()
            except Exception:  # gone already: nothing of it can run
                return True

    def thaw(self) -> None:
        with self._lock:
            self._thaw()

    def leave(self) -> None:
        """It is gone from the GPU: never stopped again, and running if it was stopped."""
        with self._lock:
            self.left = True
            self._thaw()

    def _thaw(self) -> None:
        if self.frozen_since is None:
            return
        seconds = time.monotonic() - self.frozen_since
        self.frozen_since = None
        self.frozen_s += seconds
        assert self.box is not None
        try:  # the credit first: the supervisor reads it before any deadline check after waking
            self.box.say(f"frozen {seconds:.6f}\n".encode())
            self.box.thaw()
        except Exception:
            pass

    def started(self) -> float:
        """The job's run starts now (`go` of a tenant held since its start): a freeze still
        going on is split here, so its thaw credits the job only the seconds after it. The
        seconds frozen so far, which are not the job's."""
        with self._lock:
            if self.frozen_since is not None:
                now = time.monotonic()
                self.frozen_s += now - self.frozen_since
                self.frozen_since = now
            return self.frozen_s

    def frozen_seconds(self) -> float:
        """Seconds frozen so far, the current freeze included (a deadline's extension)."""
        since = self.frozen_since
        return self.frozen_s + (time.monotonic() - since if since is not None else 0.0)


class GpuShare:
    """The timing lock of one GPU and the jobs in flight on it."""

    def __init__(self, device: str, drain: Callable[[float], bool] | None = None,
                 drain_bound_s: float = DRAIN_BOUND_S) -> None:
        self.device = device
        self.drain = drain if drain is not None else drain_for(device)
        self.drain_bound_s = drain_bound_s
        self._cond = threading.Condition()
        self._tenants: list[Tenant] = []
        self._holder: Tenant | None = None
        self._granted_at = 0.0
        self._exclusive = False
        self._generation = 0
        self._releasing = False  # the holder's release is thawing the others
        self._costs = (0.0, 0.0)  # the current grant's freeze and drain seconds
        self._asked = 0.0  # when the current holder asked
        self._waiters = 0  # tenants inside acquire, waiting for the holder's release
        self._chained = 0  # releases in a row that left the others frozen for a waiter
        self.windows: list[Window] = []

    def join(self, name: str, box: Freezable | None,
             cancel: threading.Event | None = None) -> Tenant:
        """A job about to run: it waits while a window is open (a job released inside one
        would share the GPU with it), then counts among those frozen for every later one."""
        tenant = Tenant(name, box)
        with self._cond:
            while self._holder is not None and not (cancel is not None and cancel.is_set()):
                self._cond.wait(WAIT_POLL_S)
            self._tenants.append(tenant)
        return tenant

    def attach(self, tenant: Tenant, box: Freezable) -> None:
        """The sandbox of a tenant that joined before it existed (a held start that may touch
        the device before `go`, kgb/sandbox/subproc.py): stopped at once if a window is open,
        so nothing of it runs inside another's window, as if it had been there all along."""
        with self._cond:
            tenant.box = box
            inside = self._holder is not None and self._holder is not tenant and \
                not self._releasing
        if inside:
            tenant.freeze()

    def leave(self, tenant: Tenant) -> None:
        """The job ended (or died): it gives back the lock if it held it. One that leaves
        frozen is thawed: the judge outlives its judgement (it answered, then another job's
        window stopped it) and would wait stopped for its next job, which the holder's
        release, no longer counting it, would never thaw."""
        self.release(tenant)
        tenant.leave()
        with self._cond:
            if tenant in self._tenants:
                self._tenants.remove(tenant)
            self._cond.notify_all()

    def acquire(self, tenant: Tenant, bound_s: float,
                cancel: threading.Event | None = None) -> bool | None:
        """Wait for the lock, freeze every other tenant and drain the GPU; whether the window
        is exclusive (False: the GPU did not drain within the bound), None if the tenant left
        or the run stopped before it was granted. Revoked after `bound_s`."""
        asked = time.monotonic()
        with self._cond:
            self._waiters += 1
            try:
                while self._holder is not None and not tenant.left and \
                        not (cancel is not None and cancel.is_set()):
                    self._cond.wait(WAIT_POLL_S)
            finally:
                self._waiters -= 1
            granted = self._holder is None and not tenant.left
            if granted:
                self._holder, self._asked = tenant, asked
                self._generation += 1
                generation = self._generation
                others = [t for t in self._tenants if t is not tenant]
        if not granted:
            self._thaw_if_unheld()  # a release left the others frozen for this waiter
            return None
        began = time.monotonic()
        frozen = all([other.freeze() for other in others])  # every one, even after a failure
        stopped = time.monotonic()
        # With no other tenant there is nothing to drain (a job's GPU work ends with its
        # process; a judge answers after its last synchronising call): the grant is what a
        # GPU of its own gives, and NVML's sampled idle (~0.18 s a grant on an H200) is saved.
        exclusive = frozen and (not others or self.drain(self.drain_bound_s))
        tenant.thaw()  # held frozen through the window it queued behind (see release)
        with self._cond:
            self._granted_at, self._exclusive = time.monotonic(), exclusive
            self._costs = (stopped - began, self._granted_at - stopped)
        watchdog = threading.Timer(max(0.0, bound_s), self._revoke, (tenant, generation))
        watchdog.daemon = True
        watchdog.start()
        return exclusive

    def release(self, tenant: Tenant, revoked: bool = False) -> None:
        """The holder gives the lock back: every frozen tenant is told its frozen seconds and
        thawed — unless another holder is already waiting. Then they stay frozen for its
        window (it would freeze them again at once, and what they launched in between would
        lengthen its drain); only the holder that gave it back is frozen anew, and the GPU
        drained as for every grant. A release by anyone but the holder does nothing."""
        with self._cond:
            if self._holder is not tenant or self._releasing:  # once: a revoke races a leave
                return
            self._releasing = True
            others = [t for t in self._tenants if t is not tenant]
            # at most CHAIN_MAX windows in a row keep the others frozen: two jobs that ask
            # again and again would otherwise hand the lock to each other while the rest wait
            waiting = self._waiters
            queued = waiting if self._chained < CHAIN_MAX else 0
            self._chained = self._chained + 1 if queued else 0
            self.windows.append(Window(tenant.name, self._granted_at, time.monotonic(),
                                       self._exclusive, revoked, *self._costs, self._asked,
                                       waiting))
        if not queued:
            for other in others:
                other.thaw()
        with self._cond:
            self._holder, self._releasing = None, False
            self._cond.notify_all()
        if queued:  # the waiters may all have gone meanwhile (a cancelled run)
            self._thaw_if_unheld()

    def _thaw_if_unheld(self) -> None:
        """Thaw every frozen tenant when no one holds the lock or waits for it: the frozen
        were kept so for a waiter that then gave up (its job ended, the run stopped)."""
        with self._cond:
            if self._holder is not None or self._waiters or self._releasing:
                return
            frozen = [t for t in self._tenants if t.frozen_since is not None]
        for other in frozen:
            other.thaw()

    def _revoke(self, tenant: Tenant, generation: int) -> None:
        with self._cond:
            if self._holder is not tenant or self._generation != generation or \
                    self._releasing:
                return
        if tenant.box is not None:
            try:
                tenant.box.say(b"revoke\n")
            except Exception:
                pass
        self.release(tenant, revoked=True)

    @contextlib.contextmanager
    def exclusive(self, name: str, bound_s: float,
                  cancel: threading.Event | None = None) -> Iterator[bool | None]:
        """The lock for host-side timing (the judge's baselines): the jobs in flight are
        frozen meanwhile; yields whether the window is exclusive (None: the run stopped)."""
        tenant = self.join(name, None, cancel)
        try:
            yield self.acquire(tenant, bound_s, cancel)
        finally:
            self.leave(tenant)

    def holder(self) -> str | None:
        with self._cond:
            return self._holder.name if self._holder is not None else None


def drain_for(device: str) -> Callable[[float], bool]:
    """The GPU's drain wait: on the CPU (the interpreter, the tests) nothing to drain. NVML is
    told the GPU's UUID (kgb.sandbox.gpu.resolve): its index order ignores CUDA_VISIBLE_DEVICES
    and need not be the order `cuda:N` counts in."""
    if not device.startswith("cuda:"):
        return lambda bound_s: True
    from kgb.sandbox.gpu import resolve

    gpu = resolve(device)
    uuid = gpu.uuid if gpu is not None else None
    if os.environ.get("KGB_DRAIN") == "rates":  # the older drain, for a benchmark's "before"
        return lambda bound_s: gpu_idle(uuid, bound_s)
    return lambda bound_s: gpu_idle_since(uuid, bound_s, time.time())


def gpu_idle(uuid: str | None, bound_s: float) -> bool:
    """Wait until NVML's utilization rate of the GPU with this UUID reads 0 %, at most
    `bound_s`; False if it never did or NVML cannot tell (fail closed). Not the default: on an
    H200 the rate read 0 % 60 us after a 100 ms busy spell ended (scripts/gpu/drain_probe.py,
    docs/runs/run25), so it does not cover the last period and a tenant's kernel launched in
    it could run on into a window called exclusive. KGB_DRAIN=rates, for comparisons only."""
    return _poll_nvml(uuid, bound_s,
                      lambda nvml, handle: nvml.nvmlDeviceGetUtilizationRates(handle).gpu == 0)


def gpu_idle_since(uuid: str | None, bound_s: float, since: float) -> bool:
    """Wait for an NVML utilization sample stamped after `since` (the freeze, on the epoch
    clock) that reads 0 %: no kernel ran through an interval that ends after every tenant was
    stopped, so none of theirs is left to run. `nvmlDeviceGetUtilizationRates` may answer 0 %
    from a period that ended before the freeze, while a kernel a tenant launched in between
    runs on into the window; a sample's stamp tells. False (a shared window) when no such
    sample comes within `bound_s` or NVML cannot tell. The default drain: on an H200 the samples
    are stamped on the epoch clock every 0.2 s and one after the freeze came 0.26 s after a
    busy spell (median of 8, docs/runs/run25)."""

    def idle_sample(nvml: Any, handle: Any) -> bool:
        try:
            _, samples = nvml.nvmlDeviceGetSamples(
                handle, nvml.NVML_GPU_UTILIZATION_SAMPLES, int((since - 1.0) * 1e6))
        except nvml.NVMLError_NotFound:  # no sample newer than asked for yet
            return False
        return any(s.timeStamp / 1e6 > since and s.sampleValue.uiVal == 0 for s in samples)

    return _poll_nvml(uuid, bound_s, idle_sample)


def _poll_nvml(uuid: str | None, bound_s: float, idle: Callable[[Any, Any], bool]) -> bool:
    """Ask `idle(pynvml, handle)` of the GPU with this UUID every DRAIN_POLL_S for at most
    `bound_s`; False when it never says so, or NVML cannot tell (fail closed)."""
    if not uuid:
        return False
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByUUID(uuid)
        end = time.monotonic() + bound_s
        while True:
            if idle(pynvml, handle):
                return True
            if time.monotonic() > end:
                return False
            time.sleep(DRAIN_POLL_S)
    except Exception:
        return False


@dataclass(frozen=True)
class Shares:
    """Every shared GPU of a run: device name -> its lock (None: no GPU is shared)."""

    by_device: tuple[tuple[str, GpuShare], ...] = ()
    # A lock for each GPU one slot uses, taken only by a job whose judge compiles the
    # reference ahead, beside its worker (kgb.runner.execute, `compiles_ahead`): the judge is
    # then the worker's co-tenant, frozen through its timed windows.
    lone: tuple[tuple[str, GpuShare], ...] = ()

    @classmethod
    def for_slots(cls, slots: tuple[str, ...], ahead: bool = False) -> Shares:
        """A lock per GPU that more than one slot uses (--jobs N with timing on); with
        `ahead`, one for each other GPU too, for jobs that compile ahead."""
        gpus = sorted({s for s in slots if s != "cpu"})
        shared = [d for d in gpus if slots.count(d) > 1]
        return cls(tuple((d, GpuShare(d)) for d in shared),
                   tuple((d, GpuShare(d)) for d in gpus if d not in shared) if ahead else ())

    def get(self, device: str) -> GpuShare | None:
        """The lock of a GPU several slots share (every timed job there takes it)."""
        return next((share for d, share in self.by_device if d == device), None)

    def for_ahead(self, device: str) -> GpuShare | None:
        """The lock a job that compiles ahead takes: its GPU's shared one, or its lone one."""
        return self.get(device) or next((share for d, share in self.lone if d == device),
                                        None)

    def summary(self) -> dict:
        """Per shared GPU, what the lock cost (timing_lock.json beside the report): windows
        by kind of holder, seconds held, and the fixed cost of each grant (freezing the
        others, draining the GPU) — the figures that say whether sharing a GPU pays."""
        out = {}
        for device, share in self.by_device + self.lone:
            windows = list(share.windows)
            by_holder: dict[str, dict[str, float]] = {}
            for w in windows:
                kind = "judge" if w.holder.startswith("judge ") else "job"
                row = by_holder.setdefault(kind, {"windows": 0, "held_s": 0.0,
                                                  "freeze_s": 0.0, "drain_s": 0.0})
                row["windows"] += 1
                row["held_s"] += w.end - w.start
                row["freeze_s"] += w.freeze_s
                row["drain_s"] += w.drain_s
            longest = sorted(windows, key=lambda w: w.end - w.start, reverse=True)[:LONGEST]
            out[device] = {
                "windows": len(windows),
                "exclusive": sum(w.exclusive for w in windows),
                "revoked": sum(w.revoked for w in windows),
                "by_holder": {k: {n: round(v, 3) for n, v in row.items()}
                              for k, row in by_holder.items()},
                # which holders a run's serial seconds went to (a judge's cold baselines?)
                "longest": [[w.holder, round(w.end - w.start, 3), round(w.drain_s, 3)]
                            for w in longest],
                # every window in grant order, seconds from the first ask: whether grants
                # follow one another with holders queued (each then thaws the others only for
                # the next to freeze them again), and where the drains fall
                "timeline_columns": list(TIMELINE_COLUMNS),
                "timeline": _timeline(windows)}
        return out


TIMELINE_COLUMNS = ("holder", "asked", "granted", "ended", "freeze_s", "drain_s",
                    "waiting_at_release")


def _timeline(windows: list[Window]) -> list[list]:
    zero = min((w.asked for w in windows), default=0.0)
    return [["judge" if w.holder.startswith("judge ") else "job",
             round(w.asked - zero, 3), round(w.start - zero, 3), round(w.end - zero, 3),
             round(w.freeze_s, 3), round(w.drain_s, 3), w.waiting] for w in windows]
