"""Other processes on a job's GPU while its worker runs, seen by the trusted host through NVML.

D304 compares the supervisor's wall clock over a timing loop with the loop's CUDA events.
Another process's work on the same GPU (another user, another kgb, a judge on the wrong GPU as
in docs/gpu.md run 13) stretches that wall clock without touching the events, so beside a
neighbour the window check is no evidence either way, and the timings themselves are disturbed.
The host samples the GPU's processes while the worker runs and the judge times its baselines;
a process is the job's own when it or one of its ancestors is the job's worker (its command
line names `kgb.worker` and the job folder) or kgb itself (its judges, each bound to its own
GPU, and their compile workers; other jobs' workers see only their own GPU). A candidate cannot
start a process outside its sandbox, and one inside is its own (D304 still holds it): a
neighbour only ever costs a job its speedup, never buys it a pass.

NVML names processes by their pid in the root pid namespace. Where kgb runs in a container of
its own those pids are not its own: one it cannot see is reported as unattributed, and unless
one of the job's or kgb's processes was found among NVML's no neighbour is named (a pid could
match an unrelated process here): the watch then says it could not attribute them, and D304
rules as before (docs/timing.md)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import psutil

INTERVAL_S = 0.25  # between samples: a timing loop lasts 0.3 s or more
MAX_LISTED = 8


@dataclass(frozen=True)
class Neighbours:
    seen: tuple[str, ...] = ()  # "pid name" of other processes on the GPU during the job
    unattributed: tuple[int, ...] = ()  # pids NVML listed that are not visible from here
    error: str | None = None  # why the GPU's processes could not be read


def gpu_pids(index: int) -> list[int]:
    """Pids with a compute (CUDA) context on GPU `index` (PCI bus order, as kgb numbers GPUs).
    Graphics clients are left out: a desktop's compositor holds one on every workstation GPU
    and would cost every job its speedup for a trickle of work."""
    import pynvml

    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    return sorted({int(p.pid) for p in pynvml.nvmlDeviceGetComputeRunningProcesses(handle)})


def is_jobs_own(pid: int, job_dir: str, known: Iterable[int]) -> bool | None:
    """True for the job's worker tree and the known pids' trees (kgb: its judges, the
    compile workers torch.compile starts for a baseline, the sandboxes), False for anything
    else, None for a pid not visible from here. A worker in a container is no descendant of
    kgb: its command line names it."""
    mine = set(known)
    if pid in mine:
        return True
    try:
        proc = psutil.Process(pid)
        for each in (proc, *proc.parents()):
            if each.pid in mine:
                return True
            # The worker's argv, or (docker) the supervisor's and docker-init's, which carry it
            # in one JSON argument: an orphan the candidate double-forked is re-parented to one
            # of them and must stay the job's own, or it could make itself a "neighbour".
            line = " ".join(each.cmdline())
            if "kgb.worker" in line and job_dir in line:
                return True
    except psutil.NoSuchProcess:
        return None
    except psutil.Error:  # visible but not ours to read: not the job's worker
        return False
    return False


def _name(pid: int) -> str:
    try:
        return f"{pid} {psutil.Process(pid).name()}"
    except psutil.Error:
        return str(pid)


class NeighbourWatch:
    """Samples GPU `index` every INTERVAL_S from `start()` to `stop()` (a daemon thread)."""

    def __init__(self, index: int, job_dir: str, known: tuple[int, ...],
                 list_pids: Callable[[int], list[int]] = gpu_pids) -> None:
        self.index, self.job_dir, self.known, self.list_pids = index, job_dir, known, list_pids
        self._stop = threading.Event()
        self._seen: dict[int, str] = {}
        self._unattributed: set[int] = set()
        self._verdicts: dict[int, bool | None] = {}  # a pid is judged once per job
        self._error: str | None = None
        self._own_found = False  # NVML's pids are this host's: one of ours was among them
        self._thread = threading.Thread(target=self._run, daemon=True, name="kgb-neighbours")

    def start(self) -> NeighbourWatch:
        self.sample()  # one sample before the worker starts, so a short job has one too
        self._thread.start()
        return self

    def stop(self) -> Neighbours:
        self._stop.set()
        self._thread.join(timeout=5)
        self.sample()
        seen = tuple(self._seen[pid] for pid in sorted(self._seen))[:MAX_LISTED]
        unattributed = tuple(sorted(self._unattributed))[:MAX_LISTED]
        if seen and not self._own_found and self._error is None:
            return Neighbours((), unattributed, "none of the job's or kgb's processes was among "
                              f"the GPU's, so NVML's pids are not this host's: {len(seen)} "
                              "other process(es) could not be attributed")
        return Neighbours(seen, unattributed, self._error)

    def _run(self) -> None:
        while not self._stop.wait(INTERVAL_S):
            self.sample()

    def sample(self) -> None:
        if self._error is not None:
            return
        try:
            pids = self.list_pids(self.index)
        except Exception as exc:  # NVML missing, no permission, a GPU that went away
            self._error = f"NVML could not list the GPU's processes: {type(exc).__name__}: {exc}"
            return
        for pid in pids:
            if pid not in self._verdicts:
                self._verdicts[pid] = is_jobs_own(pid, self.job_dir, self.known)
            verdict = self._verdicts[pid]
            self._own_found |= bool(verdict) and pid not in self.known
            if verdict is None:
                self._unattributed.add(pid)
            elif not verdict and pid not in self._seen:
                self._seen[pid] = _name(pid)
