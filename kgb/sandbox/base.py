"""The sandbox interface (modelled on inspect_ai's SandboxEnvironment: one small class).

A sandbox runs one command — the candidate worker — over host folders bound at the *same paths*
inside (so argv and job.json need no translation): read-only mounts for code and the runtime,
one writable output folder. It returns what happened (exit code, timeout, capped logs); it never
interprets results. "The sandbox cannot run at all" (`SandboxUnavailable`, an infrastructure
error) is kept apart from "the command failed" (a normal `ExecResult`, a verdict on the kernel).
"""

from __future__ import annotations

import abc
import errno
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from kgb.errors import InfraError

if TYPE_CHECKING:
    from kgb.runner.gpu_share import GpuShare

GiB = 1 << 30
MiB = 1 << 20


class SandboxUnavailable(InfraError):
    """The backend cannot run here (no engine, no binary, no permission). Never a verdict."""


class JobNotStarted(InfraError):
    """A held start (Sandbox.start) was stopped from outside before `go`: the candidate's code
    never ran, so no verdict can be drawn (issue 28: it was read as the kernel's crash)."""


# Why a worker could not be started (the errno its exec or set-up failed with), where running
# again can help: the machine was short of processes, memory or files for a moment.
_RETRYABLE = frozenset({errno.EAGAIN, errno.ENOMEM, errno.EINTR, errno.EMFILE, errno.ENFILE,
                        errno.ETXTBSY, errno.EBUSY})
# Where it cannot: the same folder or program fails the same way on every attempt.
_FIXES = (
    ({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ENAMETOOLONG},
     "a folder or program the job needs is not there inside the sandbox: give --out a folder "
     "the sandbox can reach (bwrap and docker bind it at the same path) and check that the "
     "worker's Python exists at that path inside it (for docker: in the image)"),
    ({errno.EACCES, errno.EPERM},
     "the sandbox's user may not enter that folder or run that program: make the folder and "
     "every parent searchable by other users (chmod o+x) and the program executable"),
    ({errno.ENOEXEC}, "that program cannot run on this machine (another architecture, or not "
     "a program): point the sandbox at this machine's Python"),
)


def not_started(stopped: str, report: dict | None) -> JobNotStarted:
    """The JobNotStarted for a held start stopped before `go` (`stopped`, kgb/sandbox/
    _supervisor.py stopped_while_held) with advice that fits: `--resume` where another attempt
    can run (a signal, a sandbox that ended while it waited, a short-lived shortage); for a
    set-up error every attempt meets again, what is wrong and how to fix it."""
    failed = report.get("not_started") if isinstance(report, dict) else None
    head = f"a job's sandbox was stopped before the job was released ({stopped}); kgb's side, " \
        "not the kernel's"
    match = re.match(r"\[Errno (\d+)\]", str(failed)) if failed else None
    code = int(match.group(1)) if match else None
    if not failed or code in _RETRYABLE:
        return JobNotStarted(f"{head}: run again with --resume")
    fix = next((text for codes, text in _FIXES if code in codes),
               "kgb's sandbox set-up fails here: `kgb sandbox check --backend NAME` shows what")
    return JobNotStarted(f"a job's worker could not be started in its sandbox ({failed}): "
                         f"kgb's set-up, not the kernel's, and every attempt meets it again: "
                         f"{fix}; then run again")


@dataclass(frozen=True)
class Limits:
    """What one candidate job may use. Each backend enforces what it can and says what it can't
    (`Sandbox.enforced`)."""

    wall_time_s: float = 300.0  # running the cases and timing them
    # Compiling and autotuning: honest work, with a budget of its own on top of the run time,
    # pooled over a job's cases: compile_case_s for each, and at least compile_time_s (see
    # job_limits). The sandbox enforces compile_time_s, which job_limits sets per job.
    compile_time_s: float = 600.0
    compile_case_s: float = 30.0
    memory_bytes: int = 8 * GiB
    max_processes: int = 256
    # The writable output folder: every call's outputs of every case cross here before the
    # judge reads them (a GPU job of the suite's largest shapes writes ~15 GiB). A tmpfs in
    # bwrap and docker: memory is only used as far as it is written (under bwrap, by default,
    # no more than the machine can hold: ram_output_cap).
    output_bytes: int = 32 * GiB
    tmp_bytes: int = 512 * MiB
    cpus: float = 2.0
    log_bytes: int = 1 * MiB  # stdout and stderr are each kept up to this, the rest dropped


def job_limits(limits: Limits, cases: int) -> Limits:
    """One job's limits: its compile budget grows with its cases. An autotuned kernel compiles
    every config once per (shape, dtype) key it meets, so its honest compile time grows with the
    cases it runs: fla's 30-config activations took 435-460 s for 36 cases on an H100 host, and
    ~900 s for their backward twins with nine jobs sharing 16 cores (docs/realworld.md)."""
    return replace(
        limits, compile_time_s=max(limits.compile_time_s, limits.compile_case_s * cases))


def ram_output_cap(total_ram: int, jobs: int) -> int:
    """The most a job's RAM-backed output folder may hold by default: half the machine's
    memory shared by the jobs that run at once, at least 1 GiB. A candidate that fills its
    folder must not take the host's memory, and kgb's with it; 32 GiB on a 24 GiB machine
    would. Deterministic for a machine and a job count, so `--resume` sees the same limits."""
    return max(GiB, total_ram // (2 * max(1, jobs)))


def compile_budget_s(limits: Limits, channel: bool) -> float:
    """Compile/autotune time the supervisor may add to the run-time limit: only with a channel,
    on which the worker opens and closes its compile intervals (kgb/sandbox/_supervisor.py)."""
    return limits.compile_time_s if channel else 0.0


@dataclass(frozen=True)
class SandboxRequest:
    argv: tuple[str, ...]
    out_dir: Path  # the only writable host folder
    ro_paths: tuple[Path, ...]  # host paths the command needs to read (code, suite, runtime)
    env: tuple[tuple[str, str], ...]  # the complete environment: nothing is inherited
    tmp_dir: Path  # per-job scratch (HOME, TMPDIR, Triton cache); a size-capped tmpfs where the
    # backend can make one, a fresh host folder otherwise. Never shared between jobs.
    device: str = "cpu"  # "cpu" or "cuda:<index>"
    label: str = ""  # run id + job name, for finding leftovers
    cwd: Path | None = None
    # Set by kgb when the run is being stopped: the backend kills the job at once, as on timeout.
    cancel: threading.Event | None = field(default=None, compare=False)
    # A regular expression: backends that copy outputs out copy only top-level regular files
    # whose names match it (None: everything, as the self-check's probes need).
    keep_names: str | None = None
    # The supervisor's channel (marks timed on its clock, commits it answers): fds 3 and 4 in
    # the worker; what it recorded comes back in ExecResult.channel.
    channel: bool = False
    # A GPU several jobs share (--jobs N with timing on): the worker's timed windows take its
    # exclusive timing lock through the supervisor, the others frozen (kgb/runner/gpu_share.py).
    share: GpuShare | None = field(default=None, compare=False)
    # Hand the outputs over in place (issue 24, "bytes moved once"; needs `keep_names`): where
    # the backend can, outputs over this many bytes stay in the sandbox's output tmpfs, swept
    # once the worker's tree is dead, and the trusted side reads them there
    # (ExecResult.held) until `HeldOutputs.release`. None: copy everything out, as before.
    hand_over: int | None = None


@dataclass(frozen=True)
class HeldOutputs:
    """Outputs handed over in place: the sandbox (its output tmpfs, swept, no candidate
    process left) stays until `release`, which the runner calls once the judge is done."""

    folder: str  # where the trusted side reads them: /proc/PID/root/<out_dir>
    ident: tuple[int, int]  # (st_dev, st_ino) of that folder, checked on every open
    files: tuple[tuple[str, int], ...]  # what stayed there: (name, bytes)
    release: Callable[[], None] = field(compare=False, repr=False)

    @property
    def bytes(self) -> int:
        return sum(size for _, size in self.files)


@dataclass(frozen=True)
class ExecResult:
    returncode: int | None  # None when killed by kgb (timeout)
    timed_out: bool
    wall_s: float
    stdout: str
    stderr: str
    truncated: bool = False  # a log hit Limits.log_bytes
    notes: tuple[str, ...] = field(default=())  # backend remarks for the job log
    channel: dict | None = field(default=None, compare=False)  # the supervisor's marks/commits
    worker_s: float | None = None  # the worker's life on the supervisor's clock
    # The outputs, held in the sandbox (SandboxRequest.hand_over): release it after judging.
    held: HeldOutputs | None = field(default=None, compare=False)


def worker_seconds(report: dict | None) -> float | None:
    """The supervisor's `wall_s` (the worker's life inside the sandbox), if it reported one."""
    value = report.get("wall_s") if isinstance(report, dict) else None
    return float(value) if isinstance(value, (int, float)) and value >= 0 else None


class Sandbox(abc.ABC):
    name: ClassVar[str]
    isolation: ClassVar[str]  # "none" | "namespaces" | "container"
    enforced: ClassVar[tuple[str, ...]]  # Limits fields this backend enforces
    # The output folder is host RAM that no limit of the job counts (bwrap's tmpfs; docker
    # charges its tmpfs to the container's memory limit, the process backend writes to disk).
    output_in_ram: ClassVar[bool] = False

    @classmethod
    @abc.abstractmethod
    def unavailable_reason(cls) -> str | None:
        """None when this backend can run on this host, else a one-line reason and fix."""

    @abc.abstractmethod
    def run(self, request: SandboxRequest, limits: Limits) -> ExecResult:
        """Run the command to completion or to its wall-time limit; kill everything it started.

        Raises SandboxUnavailable if the backend fails before the command could start."""

    def start(self, request: SandboxRequest, limits: Limits) -> Started:
        """Start the job ahead of its turn (a warm start): the sandbox is made and the worker
        imports its runtime, then waits; `go()` runs it as `run` would, its clocks starting at
        `go`. A backend that cannot hold a worker starts nothing until `go`.

        Raises SandboxUnavailable if the backend fails before the command could start."""
        return _ColdStart(lambda: self.run(request, limits))

    def close(self) -> None:  # noqa: B027 - an optional hook: most backends hold nothing
        """Release backend resources (images, clients). Idempotent."""

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def describe(self) -> dict:
        return {"backend": self.name, "isolation": self.isolation,
                "enforced": list(self.enforced)}


class Started(Protocol):
    """A job started ahead (Sandbox.start): run it now, or end it unrun. Exactly one of the
    two is called, once."""

    def go(self) -> ExecResult: ...

    def abandon(self) -> None: ...


class _ColdStart:
    def __init__(self, run: Callable[[], ExecResult]) -> None:
        self._run = run

    def go(self) -> ExecResult:
        return self._run()

    def abandon(self) -> None:
        pass


_BACKENDS: dict[str, type[Sandbox]] = {}
AUTO_ORDER = ("docker", "bwrap", "process")


def register_backend(cls: type[Sandbox]) -> type[Sandbox]:
    _BACKENDS[cls.name] = cls
    return cls


def _load_backends() -> None:
    import kgb.sandbox.process  # noqa: F401

    for module in ("kgb.sandbox.docker", "kgb.sandbox.bwrap"):
        try:
            __import__(module)
        except ImportError:
            pass


def available_backends() -> dict[str, str | None]:
    """Every known backend name → None if usable here, else why not."""
    _load_backends()
    return {name: _BACKENDS[name].unavailable_reason() for name in AUTO_ORDER if name in _BACKENDS}


def create_sandbox(name: str, **options) -> Sandbox:
    """A backend by name; `auto` takes the first usable of docker, bwrap, process."""
    _load_backends()
    if name == "auto":
        for candidate in AUTO_ORDER:
            cls = _BACKENDS.get(candidate)
            if cls is not None and cls.unavailable_reason() is None:
                return cls(**options)
        raise SandboxUnavailable("no sandbox backend is usable on this host")
    cls = _BACKENDS.get(name)
    if cls is None:
        raise SandboxUnavailable(f"unknown sandbox backend {name!r}; "
                                 f"choose one of auto, {', '.join(AUTO_ORDER)}")
    reason = cls.unavailable_reason()
    if reason:
        raise SandboxUnavailable(f"sandbox {name!r} is unavailable: {reason}")
    return cls(**options)
