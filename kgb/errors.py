"""User-facing errors. Each carries a one-line message (what is wrong, how to fix it) and the
process exit code the CLI turns it into. Nothing below the CLI prints or calls sys.exit."""

from __future__ import annotations


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
