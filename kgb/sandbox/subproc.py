"""Run a child process group with a wall-clock limit and capped logs; shared by the process and
bwrap backends. The child gets its own session, no inherited file descriptors, and is killed
with every descendant — including ones that escaped into a new session — when it ends or
times out."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import psutil


@dataclass(frozen=True)
class ChildOutcome:
    returncode: int | None
    timed_out: bool
    wall_s: float
    stdout: str
    stderr: str
    truncated: bool


class _CappedReader(threading.Thread):
    """Drains a pipe to the end (so the child never blocks on a full pipe) but keeps only the
    first `cap` bytes."""

    def __init__(self, stream, cap: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.cap = stream, cap
        self.kept = bytearray()
        self.truncated = False

    def run(self) -> None:
        while True:
            chunk = self.stream.read1(1 << 16) if hasattr(self.stream, "read1") else \
                self.stream.read(1 << 16)
            if not chunk:
                break
            room = self.cap - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]
            if len(chunk) > max(room, 0):
                self.truncated = True


def _kill_tree(proc: subprocess.Popen, known: set[int]) -> None:
    """SIGKILL the process group, then any descendant seen alive (new sessions escape killpg)."""
    try:
        descendants = psutil.Process(proc.pid).children(recursive=True)
        known.update(p.pid for p in descendants)
    except psutil.Error:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in known:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def run_child(argv: Sequence[str], env: dict[str, str], timeout_s: float, log_bytes: int,
              cwd: str | None = None, preexec: Callable[[], None] | None = None) -> ChildOutcome:
    start = time.monotonic()
    proc = subprocess.Popen(
        list(argv), env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True, close_fds=True, preexec_fn=preexec)
    readers = [_CappedReader(proc.stdout, log_bytes), _CappedReader(proc.stderr, log_bytes)]
    for r in readers:
        r.start()
    seen: set[int] = set()
    timed_out = False
    try:
        deadline = start + timeout_s
        while proc.poll() is None:
            if time.monotonic() > deadline:
                timed_out = True
                break
            try:  # remember descendants while they live, to kill escapees later
                seen.update(p.pid for p in psutil.Process(proc.pid).children(recursive=True))
            except psutil.Error:
                pass
            time.sleep(0.05)
    finally:
        _kill_tree(proc, seen)
        proc.wait()
        for r in readers:
            r.join(timeout=5)
    out, err = readers
    return ChildOutcome(
        returncode=None if timed_out else proc.returncode, timed_out=timed_out,
        wall_s=time.monotonic() - start,
        stdout=out.kept.decode("utf-8", "replace"), stderr=err.kept.decode("utf-8", "replace"),
        truncated=out.truncated or err.truncated)
