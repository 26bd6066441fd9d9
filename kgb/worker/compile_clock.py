"""How long the candidate's kernels spend compiling and autotuning: Triton's compile step and
the autotuner's benchmarking of each config, timed by wrapping them (nested time counted once).
Autotuning is honest work with its own budget (Limits.compile_time_s), so the worker reports
this time, and a progress file says which budget a job was spending when it was stopped.
Each interval is also announced on the supervisor's channel, which times it on its own clock
and moves the run-time deadline out by it, up to the compile budget."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from kgb.bench.channel import ENV as CHANNEL_ENV


def startup(edge: str) -> None:
    """Open ("+", first thing the worker does) or close ("-", as the candidate's import
    begins) the worker's start-up on the supervisor's channel: start-up draws on the compile
    budget, so the run-time limit starts with the candidate (kgb/sandbox/_supervisor.py).
    A raw write: it runs before torch is imported, and before the worker's Channel exists."""
    try:
        os.write(int(os.environ[CHANNEL_ENV].split(",")[0]), f"S {edge}\n".encode())
    except (KeyError, ValueError, OSError):
        pass  # no channel: nothing times the worker (and no compile budget is credited)


class CompileClock:
    def __init__(self) -> None:
        self.seconds = 0.0
        self._depth = 0
        self._since = 0.0
        self._announce: Callable[[str], None] = lambda _: None
        # Compiles may open on the pre-compile's threads too (precompile.py): one depth.
        self._lock = threading.RLock()

    def announce_to(self, send: Callable[[str], None]) -> None:
        """`send("+")` when a compile/autotune interval opens, `send("-")` when it closes."""
        self._announce = send

    def install(self) -> None:
        try:
            from triton.runtime.jit import JITFunction
            self._wrap(JITFunction, "_do_compile")
        except ImportError:  # pragma: no cover
            pass
        try:
            from triton.runtime.autotuner import Autotuner
            self._wrap(Autotuner, "_bench")
        except ImportError:  # pragma: no cover
            pass

    def _wrap(self, cls: Any, name: str) -> None:
        original = getattr(cls, name, None)
        if original is None:
            return
        clock = self

        def timed(self, *args, **kwargs):
            clock._enter()
            try:
                return original(self, *args, **kwargs)
            finally:
                clock._leave()

        setattr(cls, name, timed)

    @contextlib.contextmanager
    def interval(self) -> Iterator[None]:
        """One compile interval around work that is not a wrapped call (the pre-compile)."""
        self._enter()
        try:
            yield
        finally:
            self._leave()

    def _enter(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._since = time.perf_counter()
                self._announce("+")
            self._depth += 1

    def _leave(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self.seconds += time.perf_counter() - self._since
                self._announce("-")

    def now(self) -> float:
        """Compile time so far, including a compile in progress."""
        running = time.perf_counter() - self._since if self._depth else 0.0
        return self.seconds + running
