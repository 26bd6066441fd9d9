"""One verification in a process of its own, started by kgb.serve (executor.py, warm.py). It
runs the pipeline kgb.verify_kernel runs (kgb.verify, for an archive) and leaves
FOLDER/run/report.json; a KgbError leaves one line on stderr and its exit code
(kgb.errors.ExitCode). Its own process, so a deadline can end it (SIGTERM: run_verify tears its
sandboxes down, as for `kgb verify`) without touching the server. Two ways to start it:

- `python -m kgb.serve.child SPEC.json` (warm off): runs the spec at once.
- `python -m kgb.serve.child --wait` (a warm slot, kgb.serve.warm): imports the pipeline, then
  waits for its spec, one JSON line on stdin. It prepares the job (layer 1; the sandbox started
  and the worker importing, held: kgb.runner.schedule.before_finish) and waits for a `go` line
  on stdin before the job's clocks start. EOF instead (the slot closed, the request was dropped)
  ends it with nothing run. Every request still gets a fresh child and a fresh sandbox."""

from __future__ import annotations

import json
import os
import select
import sys
import time
from pathlib import Path
from typing import Any

from kgb.errors import ExitCode, KgbError

GO = "go"


def main(argv: list[str]) -> int:
    if argv[1:] == ["--wait"]:
        return _wait_then_run()
    return run(json.loads(Path(argv[1]).read_text()))  # written by the executor, not a client


def run(spec: dict[str, Any]) -> int:
    folder = Path(spec["folder"])
    from kgb.runner.verify import VerifyOptions, run_verify

    try:
        if spec["submission"] is None:  # kgb.verify_kernel: a one-kernel submission
            from kgb.suite.corpus import write_submission

            task = spec["task"]
            submission = write_submission(folder / "submission",
                                          {task: (folder / "kernel.py").read_text()},
                                          name=f"kernel-{task}")
            only: tuple[str, ...] | None = (task,)
        else:
            submission, only = Path(spec["submission"]), None
        run_verify(VerifyOptions(submission=submission, tasks_dir=Path(spec["tasks"]),
                                 out_dir=folder / "run", device=spec["device"],
                                 sandbox=spec["sandbox"], timeout_s=spec["timeout_s"],
                                 only=only, force=True, only_submitted=True,
                                 static=spec.get("static", True)), quiet=True)
    except KgbError as exc:
        sys.stderr.write(exc.message.replace("\n", " ") + "\n")
        return exc.exit_code
    except KeyboardInterrupt:  # the executor's SIGTERM (a deadline, a cancelled request)
        return ExitCode.INTERRUPTED
    return ExitCode.OK


class Lines:
    """Lines from a file descriptor (the slot's pipe), read without Python's buffering so that
    a wait can poll it and watch the run's cancel event at once."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer, self.closed = fd, b"", False

    def next(self, timeout_s: float | None) -> str | None:
        """The next line; None at EOF; TimeoutError if none came within `timeout_s`."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while b"\n" not in self.buffer:
            if self.closed:
                return None
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(self.fd, 1 << 16)
            self.closed = not chunk
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()


class Gate:
    """kgb.runner.schedule.before_finish in a warm child: the first job, prepared, waits for
    the slot's `go`; the run's cancel (SIGTERM) or EOF drops it unrun (JobCancelled: the
    scheduler abandons its sandbox). Later jobs of the same request (an archive) go at once."""

    def __init__(self, lines: Lines) -> None:
        self.lines, self.opened = lines, False

    def __call__(self, prepared: Any, ctx: Any) -> None:
        from kgb.runner.execute import JobCancelled

        if self.opened:
            return
        prepared.ahead = True  # phases.json: waited_for_slot_s, the previous request's time
        while not ctx.cancel.is_set():
            try:
                line = self.lines.next(0.2)
            except TimeoutError:
                continue
            if line is None:
                break
            if line.strip() == GO:
                self.opened = True
                return
        raise JobCancelled(prepared.job.task.id)


def _wait_then_run() -> int:
    # What a request would otherwise import after it arrived (~2 s of the host's start-up).
    import kgb.report.files
    import kgb.report.terminal
    import kgb.runner.verify
    import kgb.suite.corpus  # noqa: F401
    from kgb.runner import schedule

    lines = Lines(sys.stdin.fileno())
    line = lines.next(None)
    if not line:  # closed before a request came
        return ExitCode.OK
    spec = json.loads(line)  # written by kgb.serve.warm, not by a client
    schedule.before_finish = Gate(lines)
    return run(spec)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
