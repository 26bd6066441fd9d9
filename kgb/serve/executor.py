"""Where a verification runs. `LocalExecutor` runs each one as a child process on this machine
(kgb.serve.child); a Ray backend is another class with the same `run` (an actor per slot
calling kgb.serve.child's pipeline on its node). The executor owns the deadline: a job past it
is ended (SIGTERM, then SIGKILL of its process group) and answered as an infrastructure
failure, so no rollout holds a slot forever."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kgb import protocol as P
from kgb.api import JobResult, _job, infra_result
from kgb.errors import BadInput, ExitCode
from kgb.jsonfiles import read_json

TERM_GRACE_S = 10.0  # after SIGTERM: time for run_verify to tear its sandboxes down
REPORT_CAP = 64 << 20
DEADLINE_PASSED = "the request's deadline passed"


@dataclass(frozen=True)
class ExecOptions:
    tasks: Path
    device: str  # "cpu", "cuda", "auto", passed on to the pipeline as is
    sandbox: str
    timeout_s: float | None  # the sandbox's limit on the candidate's run (kgb verify --timeout)
    deadline_s: float  # the whole verification, from its start; then infra_error
    static: bool = True  # layer 1 (False: --static off, a research option; tests of the sandbox)


@dataclass(frozen=True)
class VerifyRequest:
    """One kernel (`source` for `tasks[0]`) or one unpacked submission (`submission`, whose
    manifest names `tasks`)."""

    tasks: tuple[str, ...]
    source: str | None = None
    submission: Path | None = None


class Executor(Protocol):
    def run(self, request: VerifyRequest, cancel: threading.Event) -> tuple[JobResult, ...]:
        """The request's results, one per task; BadInput for a request kgb refuses; never
        an InfraError (that is a result with status infra_error)."""
        ...


class LocalExecutor:
    def __init__(self, options: ExecOptions, workdir: Path) -> None:
        self.options = options
        self.workdir = workdir

    def run(self, request: VerifyRequest, cancel: threading.Event) -> tuple[JobResult, ...]:
        folder = Path(tempfile.mkdtemp(prefix="job-", dir=self.workdir))
        try:
            return self._run(request, folder, cancel)
        finally:  # no result outlives its request: nobody can ask for another's
            shutil.rmtree(folder, ignore_errors=True)

    def _run(self, request: VerifyRequest, folder: Path,
             cancel: threading.Event) -> tuple[JobResult, ...]:
        spec = write_spec(request, folder, self.options)
        (folder / "spec.json").write_text(json.dumps(spec))
        with open(folder / "child.log", "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "kgb.serve.child",
                                     str(folder / "spec.json")], cwd=folder,
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                    start_new_session=True)
            ended = wait_child(proc, time.monotonic() + self.options.deadline_s, cancel)
        if ended is not None:
            return tuple(infra_result(t, ended) for t in request.tasks)
        return collect(proc.returncode, folder, request)


def write_spec(request: VerifyRequest, folder: Path, opts: ExecOptions) -> dict:
    """The child's instructions (kgb.serve.child); the kernel's source goes to FOLDER/kernel.py."""
    if request.source is not None:
        (folder / "kernel.py").write_text(request.source)
    return {"folder": str(folder), "task": request.tasks[0] if request.tasks else None,
            "submission": str(request.submission) if request.submission else None,
            "tasks": str(opts.tasks), "device": opts.device, "sandbox": opts.sandbox,
            "timeout_s": opts.timeout_s, "static": opts.static}


def collect(returncode: int, folder: Path, request: VerifyRequest) -> tuple[JobResult, ...]:
    """The results of a child that exited on its own, from its exit code and report.json."""
    line = _last_line(folder / "child.log")
    if returncode == ExitCode.BAD_INPUT:
        raise BadInput(line or "the request was refused")
    if returncode != ExitCode.OK:
        return tuple(infra_result(t, f"kgb failed (exit {returncode}): "
                                     f"{line or 'no message'}") for t in request.tasks)
    try:
        report = read_json(folder / "run" / "report.json", REPORT_CAP, "report",
                           "this is kgb's own file: a bug")
        by_task = {job["task"]: _job(_with_phases(job, folder)) for job in report["jobs"]}
        return tuple(by_task.get(t) or infra_result(t, "the run has no row for this task")
                     for t in request.tasks)
    except Exception as exc:
        return tuple(infra_result(t, f"kgb's report is unreadable ({exc})"[:300])
                     for t in request.tasks)


def wait_child(proc: subprocess.Popen, deadline: float, cancel: threading.Event) -> str | None:
    """None once the child exits on its own; else the reason it was ended."""
    while True:
        try:
            proc.wait(timeout=0.2)
            return None
        except subprocess.TimeoutExpired:
            pass
        reason = ("the request was cancelled" if cancel.is_set() else
                  DEADLINE_PASSED if time.monotonic() > deadline else None)
        if reason is not None:
            end_child(proc)
            return reason


def end_child(proc: subprocess.Popen) -> None:
    """SIGTERM (run_verify cancels its jobs and kills their sandboxes), then SIGKILL to the
    child's whole process group for whatever is left."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=TERM_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _with_phases(entry: dict, folder: Path) -> dict:
    """The job's host phases (phases.json: seconds per step, and waited_for_slot_s for a job
    prepared ahead by a warm slot) in its entry, as `phases`, before the folder goes."""
    path = folder / "run" / "jobs" / str(entry.get("task")) / P.PHASES_FILE
    if path.is_file() and not path.is_symlink():
        try:
            entry = {**entry, "phases": P.to_json(P.read(P.HostPhases, path, 1 << 16))}
        except P.ProtocolError:
            pass
    return entry


def _last_line(path: Path, cap: int = 4096) -> str:
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - cap))
        lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines()]
    line = next((ln for ln in reversed(lines) if ln), "")
    return line[:300]
