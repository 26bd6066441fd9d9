"""User-facing errors. Each carries a one-line message (what is wrong, how to fix it) and the
process exit code the CLI turns it into. Nothing below the CLI prints or calls sys.exit. Also
the one test of a GPU out of memory that the worker and the trusted judge share."""

from __future__ import annotations

import re


class ExitCode:
    OK = 0  # the run completed, whatever the verdicts
    FINDINGS = 1  # `kgb lint` / `kgb sandbox check`: the thing checked did not pass
    BAD_INPUT = 2  # unreadable archive, bad manifest, unknown task id, bad option ...
    INFRA = 3  # kgb or the machine failed: sandbox unavailable, reference worker crashed ...
    BELOW_GATE = 4  # the run completed but missed a --fail-under threshold
    INTERRUPTED = 130  # Ctrl-C, SIGTERM or SIGHUP: jobs torn down, partial report written


class KgbError(Exception):
    exit_code = ExitCode.INFRA

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadInput(KgbError):
    """The user gave kgb something it cannot use."""

    exit_code = ExitCode.BAD_INPUT


class SubmissionError(BadInput):
    """The submission archive or its manifest is unusable."""


class TaskError(BadInput):
    """A task folder or task id is unusable."""


class InfraError(KgbError):
    """kgb's own machinery failed; never a verdict on a kernel."""

    exit_code = ExitCode.INFRA


class BelowGate(KgbError):
    """The run completed but a --fail-under threshold was missed (for CI gating)."""

    exit_code = ExitCode.BELOW_GATE


class Interrupted(KgbError):
    """The user or the system stopped the run (Ctrl-C, SIGTERM, SIGHUP)."""

    exit_code = ExitCode.INTERRUPTED


def quoted(name: object, limit: int = 120) -> str:
    """A user-chosen name (archive member, task id, file) quoted for a one-line message: cut
    to `limit` characters and shown with escapes, so no name can flood or repaint a terminal."""
    text = repr(str(name))
    return text if len(text) <= limit else text[: limit - 6] + "...'"


# CUDA's own words for its memory running out: torch's caching allocator ("CUDA out of
# memory."), the runtime ("CUDA error: out of memory"), Triton's driver ("Triton Error [CUDA]:
# out of memory"). Not Triton's OutOfResources ("out of resource: shared memory"): a kernel's
# own shape, whatever shares the GPU.
_CUDA_OOM = re.compile(r"\bCUDA\b[^\n]{0,24}\bout of memory\b")


def gpu_memory_exhausted(exc: BaseException) -> bool:
    """Whether `exc` (or what it chains, 8 links) is the GPU running out of memory: the
    worker's and the trusted judge's one test (neutral: imported on both sides). A candidate
    can raise this at will: it only buys a run alone on the same checks, once."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 8:
        if any(cls.__name__ == "OutOfMemoryError" and cls.__module__.startswith("torch")
               for cls in type(current).__mro__):
            return True
        if isinstance(current, RuntimeError) and _CUDA_OOM.search(str(current)[:2000]):
            return True
        current, seen = current.__cause__ or current.__context__, seen + 1
    return False
