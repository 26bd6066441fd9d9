"""Waiting for threads whose teardown must finish, through an event each sets when it ends —
never `Thread.join` where a signal can interrupt the wait (kgb.runner.schedule's pattern).

Why: on CPython 3.11 a join interrupted by a signal handler's exception (Ctrl-C, or kgb's
SIGTERM -> KeyboardInterrupt) while the thread still runs marks that thread stopped
(threading.Thread._wait_for_tstate_lock releases its state lock, bpo-45274), so every later
join of it — the interpreter's own at exit included — returns at once: kgb exited while the
thread was still ending its children and sandboxes (the docker containers of session 27).
Only the main thread runs signal handlers, so a join in any other thread is safe."""

from __future__ import annotations

import threading
from collections.abc import Iterable

POLL_S = 0.2


def wait_ended(events: Iterable[threading.Event]) -> None:
    """Return once every event is set. An interrupt (KeyboardInterrupt, from a signal) does
    not cut the wait short: it is raised again once everything has ended."""
    interrupted: BaseException | None = None
    for event in list(events):
        while True:
            try:
                if event.wait(POLL_S):
                    break
            except KeyboardInterrupt as exc:  # the teardown still runs: wait for it
                interrupted = interrupted or exc
    if interrupted is not None:
        raise interrupted
