"""The `process` backend: a plain child process. No filesystem or network isolation — the
report says `isolation: none` — but its own session, a scrubbed environment, rlimits, a
wall-clock limit, and the whole process tree killed at the end.

The worker runs under kgb's supervisor (`_supervisor.py`), which is a child subreaper: a
descendant that double-forks into a new session is re-parented to it and killed with the rest,
however fast it escaped. The host's own deadline and tree kill stay as the backstop.

What it cannot do, said honestly in `enforced`: cap the output folder or scratch folder as a
whole (only each file, RLIMIT_FSIZE), limit CPUs, or — when kgb runs as root — limit processes
(the kernel exempts root from RLIMIT_NPROC), so a fork bomb is stopped only by the wall time."""

from __future__ import annotations

import os
import sys

import psutil

from kgb.sandbox.base import (
    ExecResult,
    Limits,
    Sandbox,
    SandboxRequest,
    Started,
    register_backend,
)
from kgb.sandbox.subproc import start_supervised

_ROOT = os.geteuid() == 0


def _enforced() -> tuple[str, ...]:
    fields = ("wall_time_s", "memory_bytes", "log_bytes")
    return fields if _ROOT else fields + ("max_processes",)


def processes_of(uid: int) -> int:
    """How many processes `uid` owns now (RLIMIT_NPROC counts all of them, not just ours)."""
    count = 0
    for proc in psutil.process_iter(["uids"]):
        try:
            if proc.info["uids"] and proc.info["uids"].real == uid:
                count += 1
        except psutil.Error:
            pass
    return count


@register_backend
class ProcessSandbox(Sandbox):
    name = "process"
    isolation = "none"
    enforced = _enforced()

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return None

    def run(self, request: SandboxRequest, limits: Limits) -> ExecResult:
        return self._start(request, limits, hold=False).go()

    def start(self, request: SandboxRequest, limits: Limits) -> Started:
        return self._start(request, limits, hold=request.channel)

    def _start(self, request: SandboxRequest, limits: Limits, hold: bool) -> Started:
        on_cpu = request.device == "cpu"
        rlimits = {"core": 0,
                   # caps any single file the worker writes (outputs, logs it opens itself)
                   "fsize": limits.output_bytes}
        if on_cpu:  # CUDA reserves huge virtual address ranges, so RLIMIT_AS only on CPU
            rlimits["as"] = limits.memory_bytes
        if not _ROOT:  # counts every process of this uid, so leave room for the existing ones
            rlimits["nproc"] = processes_of(os.getuid()) + limits.max_processes
        config = {"argv": list(request.argv), "env": dict(request.env),
                  "cwd": str(request.cwd or request.out_dir), "rlimits": rlimits,
                  "kill": "descendants", "setsid": False, "channel": request.channel}
        notes = [] if on_cpu else ["memory limit not enforced by the process backend on GPU"]
        if _ROOT:
            notes.append("process limit not enforced: kgb runs as root, which RLIMIT_NPROC exempts")
        return start_supervised((), sys.executable, config, limits, notes=notes,
                                cancel=request.cancel, hold=hold, share=request.share,
                                label=request.label)
