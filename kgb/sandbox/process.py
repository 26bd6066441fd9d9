"""The `process` backend: a plain child process. No filesystem or network isolation — the
report says `isolation: none` — but its own session, a scrubbed environment, rlimits, a
wall-clock limit, and the whole process tree killed at the end."""

from __future__ import annotations

import resource

from kgb.sandbox.base import ExecResult, Limits, Sandbox, SandboxRequest, register_backend
from kgb.sandbox.subproc import run_child


@register_backend
class ProcessSandbox(Sandbox):
    name = "process"
    isolation = "none"
    enforced = ("wall_time_s", "memory_bytes", "output_bytes", "log_bytes")

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return None

    def run(self, request: SandboxRequest, limits: Limits) -> ExecResult:
        on_cpu = request.device == "cpu"

        def preexec() -> None:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            # Caps any single file the worker writes (outputs, logs it opens itself).
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.output_bytes, limits.output_bytes))
            if on_cpu:  # CUDA reserves huge virtual address ranges, so RLIMIT_AS only on CPU
                resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))

        outcome = run_child(request.argv, dict(request.env), limits.wall_time_s,
                            limits.log_bytes, cwd=str(request.cwd or request.out_dir),
                            preexec=preexec)
        notes = () if on_cpu else ("memory limit not enforced by the process backend on GPU",)
        return ExecResult(outcome.returncode, outcome.timed_out, outcome.wall_s, outcome.stdout,
                          outcome.stderr, outcome.truncated, notes)
