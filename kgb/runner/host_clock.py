"""The host's own timeline of a run, in seconds since its process started: where a run's wall
goes outside its jobs (issue 24: on an H200 a one-kernel GELU run took 7.7 s longer than its
job, run 25). Written beside the report as host_timeline.json; performance, never evidence."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import psutil

from kgb.jsonfiles import write_json_atomic

TIMELINE_FILE = "host_timeline.json"
_lock = threading.Lock()
_marks: list[tuple[str, float]] = []


def _started() -> float:
    try:
        return psutil.Process().create_time()  # the epoch clock, as time.time()
    except psutil.Error:
        return time.time()


_STARTED = _started()


def mark(name: str) -> None:
    """`name` happened now (a batch's members mark theirs in turn: every mark is kept)."""
    with _lock:
        _marks.append((name, round(time.time() - _STARTED, 3)))


def mark_once(name: str) -> None:
    """`name` happened now, if it had not yet in this process."""
    with _lock:
        if any(n == name for n, _ in _marks):
            return
    mark(name)


def write_timeline(out_dir: Path) -> None:
    """The marks so far, with this moment as `written`."""
    mark("written")
    with _lock:
        marks = list(_marks)
    try:
        write_json_atomic(out_dir / TIMELINE_FILE, [{"mark": n, "s": s} for n, s in marks])
    except OSError:  # a report's by-product: never a run's failure
        pass
