"""Warm slots for kgb.Verifier (issue 24 and 25): each slot keeps its next child already
started, so no request pays the host's start-up, and prepares the next queued request ahead.

A slot holds at most two children (`python -m kgb.serve.child --wait`), each for ONE request:
- the running one, released with `go`;
- a spare, started as soon as the running one was released: it imports the pipeline while the
  slot works, then waits for a spec on stdin. When a request waits in the queue and no slot is
  idle, the spare gets it at once and prepares it — layer 1, the sandbox started and the worker
  importing Python/torch/Triton, held before its clocks (the scheduler's warm board,
  kgb.runner.schedule) — and it goes when the running one ends.
The worker needs its job (the task's cases, the kernel's path) when it starts, so an idle slot's
spare holds the host side only; its sandbox starts when a request comes (docs/decisions.md,
"Warm slots in kgb.Verifier").

Every request gets a fresh child and a fresh sandbox; nothing one leaves is reused. The
deadline and cancel semantics are LocalExecutor's (executor.py): the deadline counts from `go`;
past it, or on cancel, the child is ended (SIGTERM, then SIGKILL of its process group) and the
request answered infra_error. A prepared request that is cancelled before its turn ends its
child the same way."""

from __future__ import annotations

import concurrent.futures
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from kgb.api import JobResult, infra_result
from kgb.errors import BadInput
from kgb.serve.child import GO
from kgb.serve.ended import wait_ended
from kgb.serve.executor import (
    DEADLINE_PASSED,
    ExecOptions,
    VerifyRequest,
    collect,
    end_child,
    write_spec,
)

CANCELLED = "the request was cancelled"
POLL_S = 0.1


@dataclass(frozen=True)
class Item:
    request: VerifyRequest
    cancel: threading.Event
    future: concurrent.futures.Future


class _Child:
    """One `kgb.serve.child --wait` in a folder of its own, for one request."""

    def __init__(self, workdir: Path) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="job-", dir=workdir))
        self.item: Item | None = None
        self.deadline = 0.0
        with open(self.folder / "child.log", "wb") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "kgb.serve.child", "--wait"],
                                         cwd=self.folder, stdin=subprocess.PIPE, stdout=log,
                                         stderr=log, start_new_session=True)

    def give(self, item: Item, options: ExecOptions) -> bool:
        """Hand the request over: the child prepares it and holds. False: the child is gone."""
        self.item = item
        spec = write_spec(item.request, self.folder, options)
        return self._say(json.dumps(spec))

    def go(self, deadline_s: float) -> None:
        self.deadline = time.monotonic() + deadline_s
        self._say(GO)  # a child that failed while preparing has exited: collected as it is

    def _say(self, line: str) -> bool:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def results(self) -> tuple[JobResult, ...]:
        assert self.item is not None
        return collect(self.proc.returncode, self.folder, self.item.request)

    def end(self) -> None:
        """Ended now (SIGTERM: its run tears its sandbox down; then SIGKILL of its group)."""
        if self.proc.poll() is None:
            end_child(self.proc)

    def remove(self) -> None:
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)  # nobody can ask for another's result


def _settle(item: Item, outcome: tuple[JobResult, ...] | BaseException) -> None:
    if item.future.done():
        return
    if isinstance(outcome, BaseException):
        item.future.set_exception(outcome)
    else:
        item.future.set_result(outcome)


def _ended(item: Item, why: str) -> tuple[JobResult, ...]:
    return tuple(infra_result(t, why) for t in item.request.tasks)


class WarmSlots:
    """`slots` slot threads over one queue; `submit` as kgb.Verifier's, `close` ends them."""

    def __init__(self, options: ExecOptions, workdir: Path, slots: int) -> None:
        self.options, self.workdir = options, workdir
        self.queue: deque[Item] = deque()
        self.cond = threading.Condition()
        self.idle = 0
        self.closed = False
        self.ended = [threading.Event() for _ in range(slots)]  # each slot's, set as it ends
        self.threads = [threading.Thread(target=self._serve, args=(n,), name=f"kgb-warm-{n}",
                                         daemon=True) for n in range(slots)]
        for thread in self.threads:
            thread.start()

    def submit(self, request: VerifyRequest, cancel: threading.Event
               ) -> concurrent.futures.Future:
        item = Item(request, cancel, concurrent.futures.Future())
        with self.cond:
            if self.closed:
                raise RuntimeError("the Verifier is closed")
            self.queue.append(item)
            self.cond.notify()
        return item.future

    def close(self) -> None:
        """Queued requests are cancelled, running and prepared children ended, slots joined."""
        with self.cond:
            self.closed = True
            dropped = list(self.queue)
            self.queue.clear()
            self.cond.notify_all()
        for item in dropped:
            item.future.cancel()
        # not Thread.join: one interrupted by a signal lets kgb exit before the slots' children
        # are ended (kgb.serve.ended)
        wait_ended(self.ended)

    # ------------------------------------------------------------------ a slot
    def _take(self, wait: bool) -> Item | None:
        """The queue's next live request (waiting for one if `wait`); None when closed or,
        without `wait`, when none waits or a slot is idle to take it itself."""
        with self.cond:
            while True:
                while self.queue:
                    if not wait and self.idle:
                        return None
                    item = self.queue.popleft()
                    if item.future.set_running_or_notify_cancel():
                        return item
                if self.closed or not wait:
                    return None
                self.idle += 1
                try:
                    self.cond.wait()
                finally:
                    self.idle -= 1

    def _serve(self, number: int) -> None:
        try:
            self._slot()
        finally:
            self.ended[number].set()

    def _slot(self) -> None:
        spare: _Child | None = None
        running: _Child | None = None
        try:
            spare = _Child(self.workdir)  # imports while the slot waits for its first request
            while True:
                if spare.item is None:
                    item = self._take(wait=True)
                    if item is None:
                        return
                    if spare.proc.poll() is not None:  # a spare that died idle: a new one
                        spare.remove()
                        spare = _Child(self.workdir)
                    spare.give(item, self.options)
                running, spare = spare, None
                running.go(self.options.deadline_s)
                spare = _Child(self.workdir)
                spare = self._watch(running, spare)
                running.remove()
                running = None
                if self.closed:
                    return
        except BaseException as exc:  # kgb's own failure (cannot start a child): said, not hung
            for child in (running, spare):
                if child is not None and child.item is not None:
                    _settle(child.item, _ended(child.item, f"kgb's slot failed: {exc!r}"[:300]))
        finally:
            for child in (running, spare):
                if child is not None:
                    child.end()
                    child.remove()

    def _watch(self, running: _Child, spare: _Child) -> _Child:
        """Wait for the running child, ending it at its deadline or cancel, while the spare
        prepares the next queued request; settle the running request. Returns the spare (a
        new one if its prepared request was cancelled before its turn)."""
        item = running.item
        assert item is not None
        while running.proc.poll() is None:
            why = (CANCELLED if item.cancel.is_set() or self.closed else
                   DEADLINE_PASSED if time.monotonic() > running.deadline else None)
            if why is not None:
                running.end()
                _settle(item, _ended(item, why))
                break
            if spare.item is None:
                ahead = self._take(wait=False)
                if ahead is not None:
                    spare.give(ahead, self.options)
            elif spare.item.cancel.is_set() or spare.item.future.cancelled():
                spare.end()
                _settle(spare.item, _ended(spare.item, CANCELLED))
                spare.remove()
                spare = _Child(self.workdir)
            time.sleep(POLL_S)
        if not item.future.done():
            try:
                _settle(item, running.results())
            except BadInput as exc:  # the request was refused: the caller's error
                _settle(item, exc)
            except Exception as exc:
                _settle(item, _ended(item, f"kgb's result could not be read: {exc!r}"[:300]))
        if self.closed and spare.item is not None:
            spare.end()
            _settle(spare.item, _ended(spare.item, CANCELLED))
        return spare
