"""The worker's end of the supervisor channel (kgb/sandbox/_supervisor.py, point 7): marks the
supervisor timestamps on its own clock, and commits of timed-output fingerprints it answers with
the outputs to keep. Without a channel (a backend without kgb's supervisor) marks go nowhere and
the first outputs are kept; the trusted side then knows the timing is unchecked."""

from __future__ import annotations

import json
import os

ENV = "KGB_CHANNEL"  # "3,4": the worker's fds for marks out and answers in
LOCK_ENV = "KGB_LOCK"  # "1": this GPU is shared; ask for its timing lock before timing
STAGE_MARK = "stage "  # prefix of the marks that open a worker stage (runtime, device, ...)


class Channel:
    def __init__(self) -> None:
        fds = os.environ.get(ENV, "")
        try:
            out_fd, in_fd = (int(x) for x in fds.split(","))
            os.fstat(out_fd)
            os.fstat(in_fd)
            self._out: int | None = out_fd
            self._in = os.fdopen(in_fd, "r", buffering=1)
        except (ValueError, OSError):
            self._out = None

    @property
    def live(self) -> bool:
        return self._out is not None

    def mark(self, label: str) -> None:
        if self._out is not None:
            os.write(self._out, f"M {label}\n".encode())

    def compiling(self, edge: str) -> None:
        """Open ("+") or close ("-") a compile/autotune interval, timed by the supervisor."""
        if self._out is not None:
            os.write(self._out, f"B {edge}\n".encode())

    def lock(self) -> bool:
        """Ask the supervisor for the GPU's exclusive timing lock (kgb/sandbox/_supervisor.py,
        point 9) and wait for it; True once granted. Where the GPU is not shared there is
        nothing to ask for. Only the supervisor's record of the window counts on the trusted
        side, never this answer."""
        if self._out is None or os.environ.get(LOCK_ENV) != "1":
            return False
        os.write(self._out, b"T +\n")
        return self._in.readline().strip() == "T"

    def unlock(self) -> None:
        if self._out is not None and os.environ.get(LOCK_ENV) == "1":
            os.write(self._out, b"T -\n")

    def commit(self, case: str, fingerprints: list[str], nbytes: int) -> list[int]:
        """Indices of the outputs to keep, chosen by the supervisor (kgb/sandbox/_supervisor.py,
        keep_count) after it has the fingerprints and the size of one call's outputs; without
        a channel the first one, whatever its size (the timing is unchecked then anyway)."""
        if self._out is None:
            return list(range(min(1, len(fingerprints))))
        payload = json.dumps({"fingerprints": fingerprints, "bytes": nbytes})
        os.write(self._out, f"C {case} {payload}\n".encode())
        answer = self._in.readline()
        try:
            chosen = [int(i) for i in json.loads(answer)]
        except (ValueError, TypeError):
            return []
        return [i for i in chosen if 0 <= i < len(fingerprints)]
