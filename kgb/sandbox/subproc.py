"""Run a child process group with a wall-clock limit and capped logs; shared by the process and
bwrap backends. The child gets its own session, no inherited file descriptors, and is killed
with every descendant — including ones that escaped into a new session — when it ends or
times out.

`start_supervised` starts a command through kgb's in-sandbox supervisor (`_supervisor.py`),
held for a warm start or not, which does the in-sandbox timeout, tree kill and log capping and
reports what happened; `Child.wait` stays the host-side backstop (its own, later, deadline and
its own kill of the tree)."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import psutil

if TYPE_CHECKING:
    from kgb.runner.gpu_share import Freezable, GpuShare, Tenant
    from kgb.sandbox.base import ExecResult, Limits


@dataclass(frozen=True)
class ChildOutcome:
    returncode: int | None
    timed_out: bool
    wall_s: float
    stdout: str
    stderr: str
    truncated: bool
    stderr_bytes: bytes = b""  # the kept stderr undecoded, when Child.wait(raw=True)
    held: bool = False  # the child said it holds (its stderr ended with the sentinel): alive


class _CappedReader(threading.Thread):
    """Drains a pipe to the end (so the child never blocks on a full pipe) but keeps only the
    first `cap` bytes."""

    def __init__(self, stream, cap: int,
                 live: Callable[[bytes], None] | None = None,
                 sentinel: bytes | None = None) -> None:
        super().__init__(daemon=True)
        self.stream, self.cap = stream, cap
        self.kept = bytearray()
        self.truncated = False
        # The stream's last bytes were `sentinel` (a held supervisor's last line, whatever the
        # cap kept): set once, the child stays alive (kgb/sandbox/_supervisor.py, point 10).
        self.sentinel, self.tail, self.seen = sentinel, b"", threading.Event()
        # the supervisor's live lock lines (its point 9), before the worker's stdout
        self.live = LiveSplitter(live) if live is not None else None

    def run(self) -> None:
        while True:
            chunk = self.stream.read1(1 << 20) if hasattr(self.stream, "read1") else \
                self.stream.read(1 << 20)
            if not chunk:
                break
            if self.sentinel is not None:
                self.tail = (self.tail + chunk)[-len(self.sentinel):]
                if self.tail == self.sentinel:
                    self.seen.set()
            if self.live is not None:
                chunk = self.live.feed(chunk)
                if not chunk:
                    continue
            room = self.cap - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]
            if len(chunk) > max(room, 0):
                self.truncated = True



class LiveSplitter:
    """The supervisor's stdout with a timing lock: its live lock lines (point 9) go to `live`
    until its `end`; what follows is the worker's stdout, returned as output."""

    def __init__(self, live: Callable[[bytes], None]) -> None:
        self.live: Callable[[bytes], None] | None = live
        self.pending = b""

    def feed(self, chunk: bytes) -> bytes:
        from kgb.sandbox._supervisor import LOCK_TAG

        if self.live is None:
            return chunk
        self.pending += chunk
        while self.live is not None and b"\n" in self.pending:
            line, _, rest = self.pending.partition(b"\n")
            if not line.startswith(LOCK_TAG):  # not the live part (no lock): all output
                self.live = None
                break
            self.pending = rest
            word = line[len(LOCK_TAG):]
            if word == b"end":
                self.live = None
            else:
                self.live(word)
        if self.live is None:
            out, self.pending = self.pending, b""
            return out
        self.pending = self.pending[-4096:]
        return b""


def descendants(pid: int) -> set[int]:
    """The pids below `pid`, from the kernel's per-thread children lists
    (/proc/PID/task/TID/children): the tree alone. psutil's children() reads the stat file of
    every process on the machine (~1 ms of the host's CPU a call beside 90 processes), and
    Child.wait asks every 50 ms of every job. Where the kernel has no such file (built without
    CONFIG_PROC_CHILDREN), psutil's."""
    if not _PROC_CHILDREN:
        try:
            return {p.pid for p in psutil.Process(pid).children(recursive=True)}
        except psutil.Error:
            return set()
    found: set[int] = set()
    stack = [pid]
    while stack:
        parent = stack.pop()
        try:
            threads = os.listdir(f"/proc/{parent}/task")
        except OSError:  # ended meanwhile
            continue
        for tid in threads:
            try:
                with open(f"/proc/{parent}/task/{tid}/children", "rb") as listing:
                    kids = {int(word) for word in listing.read().split()}
            except (OSError, ValueError):
                continue
            stack.extend(kids - found)
            found |= kids
    found.discard(pid)
    return found


_PROC_CHILDREN = os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children")


def _kill_tree(proc: subprocess.Popen, known: set[int]) -> None:
    """SIGKILL the process group, then any descendant seen alive (new sessions escape killpg)."""
    try:
        descendants = psutil.Process(proc.pid).children(recursive=True)
        known.update(p.pid for p in descendants)
    except psutil.Error:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for pid in known:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# Every child is forked from this one thread, which lives as long as kgb: a parent-death
# signal (bwrap --die-with-parent, the supervisor's PR_SET_PDEATHSIG) fires when the *thread*
# that forked the child ends, and a job prepared ahead by a short-lived thread was killed
# before its turn (seen: bwrap and process jobs SIGKILLed, workers of prepared jobs gone).
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgb-spawner")


class Child:
    """A started child (own session, capped logs). `wait` runs it to its end or its wall-clock
    limit, counted from the call; a held child (`stdin_pipe`) waits for `release` first, and
    `abandon` kills one that will never be released."""

    def __init__(self, argv: Sequence[str], env: dict[str, str], log_bytes: int,
                 cwd: str | None = None, preexec: Callable[[], None] | None = None,
                 stdin_pipe: bool = False, live: Callable[[bytes], None] | None = None,
                 sentinel: bytes | None = None) -> None:
        self.start = time.monotonic()
        self.proc = _SPAWNER.submit(
            subprocess.Popen, list(argv), env=env, cwd=cwd,
            stdin=subprocess.PIPE if stdin_pipe else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            close_fds=True, preexec_fn=preexec).result()
        self.readers = [_CappedReader(self.proc.stdout, log_bytes, live),
                        _CappedReader(self.proc.stderr, log_bytes, sentinel=sentinel)]
        for r in self.readers:
            r.start()
        self.seen: set[int] = set()
        self.tree = ProcessTree(self.proc.pid)
        self._say_lock = threading.Lock()

    def release(self, line: bytes = b"go\n", close: bool = True) -> None:
        """Write `line` to a held child's stdin and close it (EOF alone means: never); with
        `close` False stdin stays open for the timing lock's answers (`say`)."""
        stdin = self.proc.stdin
        if stdin is None:
            return
        try:
            if line:
                stdin.write(line)
                stdin.flush()
        except (OSError, ValueError):
            pass  # it died while held: wait() reports what happened
        finally:
            if close:
                try:
                    stdin.close()
                except OSError:
                    pass

    def say(self, line: bytes) -> None:
        """A line on the child's stdin, kept open (the timing lock's grants and credits)."""
        with self._say_lock:
            self.release(line, close=False)

    def freeze(self) -> bool:
        """SIGSTOP the child and every descendant (ProcessTree.freeze)."""
        return self.tree.freeze()

    def thaw(self) -> None:
        self.tree.thaw()

    def abandon(self) -> None:
        self.release(b"")
        self._end()

    def wait(self, timeout_s: float, raw: bool = False,
             cancel: threading.Event | None = None,
             frozen: Callable[[], float] | None = None) -> ChildOutcome:
        """`frozen`: seconds the child has spent frozen by the timing lock so far, which move
        the deadline out."""
        start = time.monotonic()
        proc, seen = self.proc, self.seen
        timed_out = False
        held = self.readers[1].seen
        try:
            deadline = start + timeout_s
            while proc.poll() is None and not held.is_set():
                if time.monotonic() > deadline + (frozen() if frozen is not None else 0.0):
                    timed_out = True
                    break
                if cancel is not None and cancel.is_set():  # the run is stopping: as on timeout
                    break
                seen.update(descendants(proc.pid))  # remembered while they live, to kill
                # escapees later
                try:
                    proc.wait(timeout=0.05)  # returns at once when the child exits
                except subprocess.TimeoutExpired:
                    pass
        finally:
            if not held.is_set():  # held: alive on purpose until finish_held
                self._end()
        out, err = self.readers
        if held.is_set():
            _drain(self.proc.stdout)  # written before the report: read it to its end
            kept = bytes(err.kept)
            at = kept.rfind(err.sentinel or b"")
            return ChildOutcome(None, False, time.monotonic() - start,
                                out.kept.decode("utf-8", "replace"), "", out.truncated,
                                kept[:at] if at >= 0 else kept, held=True)
        return ChildOutcome(
            returncode=None if timed_out else proc.returncode, timed_out=timed_out,
            wall_s=time.monotonic() - start,
            stdout=out.kept.decode("utf-8", "replace"),
            stderr=err.kept.decode("utf-8", "replace"),
            truncated=out.truncated or err.truncated, stderr_bytes=bytes(err.kept) if raw else b"")

    def finish_held(self, line: bytes, timeout_s: float) -> None:
        """End a held child: `line` on its stdin, which then closes (EOF alone means release),
        and wait up to `timeout_s` for it to exit before the kill."""
        self.release(line)
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            pass
        self._end()

    def _end(self) -> None:
        _kill_tree(self.proc, self.seen)
        self.proc.wait()
        for r in self.readers:
            r.join(timeout=5)


class ProcessTree:
    """A process and its descendants, stopped and resumed as a whole: a sandbox's tree while
    another job holds the GPU's timing lock, or the trusted judge's (kgb/runner/gpu_share.py)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.stopped: set[int] = set()

    def freeze(self) -> bool:
        """SIGSTOP every process of the tree until every one of them shows stopped: a fork
        racing the freeze, or a process its not-yet-stopped sibling sent SIGCONT, is caught by
        the next pass. False if the tree would not stay stopped (the window is then recorded
        as shared)."""
        end = time.monotonic() + FREEZE_BOUND_S
        while True:
            running = [p for p in self.processes() if not _stopped(p)]
            if not running:
                return True
            if time.monotonic() > end:
                return False
            for proc in running:
                _signal(proc.pid, signal.SIGSTOP)
                self.stopped.add(proc.pid)
            time.sleep(0.002)

    def thaw(self) -> None:
        for pid in {p.pid for p in self.processes()} | self.stopped:
            _signal(pid, signal.SIGCONT)
        self.stopped.clear()

    def processes(self) -> list[psutil.Process]:
        """The root and its descendants (`descendants`: the kernel's children lists, not
        psutil's scan of every process on the machine); one that ended meanwhile is left out."""
        found = []
        for pid in (self.pid, *descendants(self.pid)):
            try:
                found.append(psutil.Process(pid))
            except psutil.Error:
                if pid == self.pid:
                    return []
        return found


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# How long SIGSTOP passes over a sandbox's tree may take before its freeze counts as failed
# (a loaded machine delivers the stop when the target next runs).
FREEZE_BOUND_S = 1.0


def _stopped(proc: psutil.Process) -> bool:
    """Stopped by a signal, or gone (a zombie or an exited process cannot run either), or held
    in vfork with our stop pending (`_held_in_vfork`)."""
    try:
        status = proc.status()
    except psutil.Error:
        return True
    return status in (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP, psutil.STATUS_ZOMBIE,
                      psutil.STATUS_DEAD) \
        or (status == psutil.STATUS_DISK_SLEEP and _held_in_vfork(proc.pid))


def _held_in_vfork(pid: int) -> bool:
    """A parent waiting in vfork (posix_spawn, Python's subprocess) for a child that is not
    past its exec: it cannot return to user space before the child execs or exits, and the
    child is stopped by the same freeze; the SIGSTOP it was sent is pending and stops it the
    moment it does return. It never shows stopped (seen in CI: a freeze that waited for it
    failed, and a candidate could fail every freeze of its neighbours' windows so)."""
    try:
        with open(f"/proc/{pid}/wchan") as f:
            wchan = f.read().strip()
        with open(f"/proc/{pid}/status") as f:
            pending = {line.split(":")[0]: int(line.split()[1], 16) for line in f
                       if line.startswith(("SigPnd:", "ShdPnd:"))}
    except (OSError, ValueError, IndexError):
        return False
    stop = 1 << (signal.SIGSTOP - 1)
    return wchan in _VFORK_WAITS and any(mask & stop for mask in pending.values())


# The kernel function a vfork parent sleeps in, as /proc/PID/wchan names it (6.x: the wait is
# inlined into kernel_clone; older kernels name it).
_VFORK_WAITS = frozenset({"kernel_clone", "wait_for_vfork_done", "_do_fork", "do_fork"})


# Room kept on the host beyond Limits.log_bytes for the supervisor's report line.
REPORT_ROOM = 64 * 1024
# How long after the in-sandbox deadline the host stops waiting and kills from outside.
HOST_GRACE_S = 10.0


class LockLines:
    """The host's end of a supervisor's timing-lock lines (kgb/sandbox/_supervisor.py, point
    9) for one job on a shared GPU: `+` asks the GPU's lock (kgb/runner/gpu_share.py) and
    answers `granted ...` on the supervisor's stdin; `-` gives it back."""

    def __init__(self, share: GpuShare, name: str, bound_s: float) -> None:
        self.share, self.name, self.bound_s = share, name, bound_s
        self.tenant: Tenant | None = None
        self.cancel: threading.Event | None = None
        self.child: Freezable | None = None
        self.joined = threading.Event()

    def join(self, child: Freezable, cancel: threading.Event | None) -> Tenant:
        if self.tenant is not None:  # joined before its start (`join_before`)
            return self.tenant
        self.child, self.cancel = child, cancel
        self.tenant = self.share.join(self.name, child, cancel)
        self.joined.set()
        return self.tenant

    def join_before(self, cancel: threading.Event | None) -> None:
        """A tenant before the sandbox exists: a held worker then readies the GPU (its CUDA
        context, the profiler) while held, frozen through every other job's window from its
        first instruction on (`attach`)."""
        self.cancel = cancel
        self.tenant = self.share.join(self.name, None, cancel)

    def attach(self, child: Freezable) -> None:
        assert self.tenant is not None
        self.child = child
        self.share.attach(self.tenant, child)
        self.joined.set()

    def line(self, word: bytes) -> None:
        """One live line from the supervisor (its stdout reader thread calls this)."""
        self.joined.wait(60.0)  # a start not held runs before `go` has joined it
        tenant, child = self.tenant, self.child
        if tenant is None or child is None:
            return
        if word == b"+":
            granted = self.share.acquire(tenant, self.bound_s, self.cancel)
            if granted is not None:
                child.say(b"granted exclusive\n" if granted else b"granted shared\n")
        elif word == b"-":
            self.share.release(tenant)

    def leave(self) -> None:
        if self.tenant is not None:
            self.share.leave(self.tenant)


class SupervisedStart:
    """A supervised command started ahead and held (kgb/sandbox/_supervisor.py, point 8):
    `go` releases it and runs it to its report, `abandon` ends it unrun. `on_end` (cleanup
    of the backend's state) runs once either way."""

    def __init__(self, child: Child, limits: Limits, budget: float, notes: Sequence[str],
                 cancel: threading.Event | None, on_end: Callable[[], None] | None,
                 hold: bool = True, lock: LockLines | None = None,
                 out_dir: str | None = None) -> None:
        self.child, self.limits, self.budget, self.notes = child, limits, budget, list(notes)
        self.cancel, self.on_end, self.hold, self.lock = cancel, on_end, hold, lock
        self.out_dir = out_dir  # set: the supervisor may hand its outputs over in place

    def go(self) -> ExecResult:
        tenant, outcome = None, None
        before = 0.0  # seconds a tenant since its start spent frozen while held: not the job's
        try:
            # held (a stdin to say go on) and already gone: nothing of the candidate ran
            ended_held = self.hold and self.child.proc.stdin is not None and \
                self.child.proc.poll() is not None
            # Never released into another job's timed window: joined now (after any window
            # open), or a tenant since its start (held on a shared GPU), frozen through it
            if self.lock is not None:
                tenant = self.lock.join(self.child, self.cancel)
                before = tenant.started()
            # stdin stays open for the lock's lines, and for `release` of held outputs
            keep_stdin = self.lock is not None or self.out_dir is not None
            self.child.release(b"go\n" if self.hold else b"", close=not keep_stdin)
            since = (lambda: tenant.frozen_seconds() - before) if tenant else None
            outcome = self.child.wait(self.limits.wall_time_s + self.budget + HOST_GRACE_S,
                                      raw=True, cancel=self.cancel, frozen=since)
        finally:
            if self.lock is not None:
                self.lock.leave()
            if outcome is None or not outcome.held:
                self.child.release(b"")  # close the stdin kept open for the lock's lines
                self._ended()
        if tenant is not None:  # the seconds another job's windows kept it frozen
            outcome = replace(outcome, wall_s=max(0.0, outcome.wall_s - tenant.frozen_s
                                                  + before))
        if not outcome.held:
            return _result(outcome, self.notes, ended_held)
        try:
            return self._take_held(_result(outcome, self.notes, ended_held),
                                   _supervisor_report(outcome))
        except BaseException:
            self.release_held()
            raise

    def _take_held(self, result: ExecResult, report: dict | None) -> ExecResult:
        """The supervisor holds the swept outputs: read them in place where this host can
        (ExecResult.held, released by the runner after judging), else have it copy them out
        and end, as without hand-over (kgb/sandbox/handover.py)."""
        from kgb.sandbox import handover
        from kgb.sandbox.base import HeldOutputs

        seen = handover.described(report, "held")
        folder = handover.locate(sorted(descendants(self.child.proc.pid)), self.out_dir or "",
                                 seen[1], seen[0]) if seen is not None else None
        if seen is None or folder is None:
            self.child.finish_held(b"copy\n", COPY_BOUND_S)
            self._ended()
            return replace(result, notes=result.notes + (
                "the outputs could not be read in place (/proc/PID/root of the sandbox is not "
                "readable here): copied out",))
        copied = int(report.get("copied_bytes") or 0) if report else 0
        return replace(result, notes=result.notes + handover.notes(seen[0], copied, report,
                                                                   "held"),
                       held=HeldOutputs(folder, seen[1], seen[0], self.release_held))

    def release_held(self) -> None:
        """End the held sandbox (idempotent): its output tmpfs goes with its namespaces."""
        self.child.finish_held(b"release\n", RELEASE_BOUND_S)
        self._ended()

    def abandon(self) -> None:
        try:
            self.child.abandon()
        finally:
            if self.lock is not None:  # a tenant since its start (`join_before`)
                self.lock.leave()
            self._ended()

    def _ended(self) -> None:
        on_end, self.on_end = self.on_end, None
        if on_end is not None:
            on_end()


def start_supervised(prefix: Sequence[str], python: str, config: dict, limits: Limits,
                     cwd: str | None = None, preexec: Callable[[], None] | None = None,
                     notes: Sequence[str] = (), cancel: threading.Event | None = None,
                     on_end: Callable[[], None] | None = None,
                     hold: bool = True, share: GpuShare | None = None,
                     label: str = "") -> SupervisedStart:
    """Start `prefix + [python, supervisor, config]`; held (`hold`, with a channel) the worker
    imports, then waits for `go`. `config` gets argv/env/cwd from the caller; timeout and log
    cap come from `limits`. With `share` (a GPU several jobs share, with a channel) the worker
    asks for the GPU's timing lock through the supervisor."""
    from kgb.sandbox import _supervisor
    from kgb.sandbox.base import compile_budget_s

    budget = compile_budget_s(limits, bool(config.get("channel")))
    lock = LockLines(share, label, limits.wall_time_s) \
        if share is not None and config.get("channel") else None
    # Held on a shared GPU: a tenant from its start, so the worker may ready the device while
    # held (kgb/worker/main.py `_ready_device`: the CUDA context and the profiler's ~4 s)
    early = lock if hold else None
    config = dict(config, timeout_s=limits.wall_time_s, compile_budget_s=budget,
                  log_bytes=limits.log_bytes, hold=hold, lock=lock is not None,
                  hold_device=early is not None)
    if early is not None:
        early.join_before(cancel)
    # Hand-over in place (_supervisor.py point 10): a secret only the host and the supervisor
    # know ends a held report, so a worker's stderr can never make the host think it holds.
    nonce = secrets.token_hex(16).encode() \
        if config.get("hand_over") is not None and config.get("export") else None
    try:
        child = Child(list(prefix) + _supervisor.command(python, config), {},
                      limits.log_bytes + REPORT_ROOM, cwd=cwd, preexec=preexec,
                      stdin_pipe=hold or lock is not None or nonce is not None,
                      live=lock.line if lock is not None else None,
                      sentinel=_supervisor.HELD_TAG + nonce + b"\n" if nonce else None)
        if nonce is not None:  # the first line on its stdin, before any `frozen` credit
            child.say(b"nonce " + nonce + b"\n")
        if early is not None:
            early.attach(child)
    except BaseException:
        if lock is not None:
            lock.leave()
        if on_end is not None:
            on_end()
        raise
    return SupervisedStart(child, limits, budget, notes, cancel, on_end, hold, lock,
                           str(config["out_dir"]) if nonce is not None else None)


def _drain(stream, bound_s: float = 2.0) -> None:
    """Wait (up to `bound_s`) until a pipe whose writer stays alive has nothing left unread:
    a held supervisor wrote the worker's stdout before its report, and no EOF will come."""
    import fcntl
    import struct
    import termios

    end = time.monotonic() + bound_s
    while time.monotonic() < end:
        try:
            pending = struct.unpack("i", fcntl.ioctl(stream.fileno(), termios.FIONREAD,
                                                     b"\0\0\0\0"))[0]
        except (OSError, ValueError):
            return
        if not pending:
            time.sleep(0.02)  # the reader thread's last chunk, read but not yet kept
            return
        time.sleep(0.01)


# A held supervisor told `copy` copies every output out first (the 32 GiB folder, at
# disk speed); told `release` it only exits.
COPY_BOUND_S = 900.0
RELEASE_BOUND_S = 30.0


def _supervisor_report(outcome: ChildOutcome) -> dict | None:
    from kgb.sandbox import _supervisor

    return _supervisor.split_report(outcome.stderr_bytes)[1]


def _result(outcome: ChildOutcome, notes: Sequence[str], ended_held: bool = False) -> ExecResult:
    """The supervisor's report (or, without one, the host's view) as an ExecResult; a held
    start that ended before `go` (`ended_held`, or the report says so) raises JobNotStarted."""
    from kgb.sandbox import _supervisor
    from kgb.sandbox.base import ExecResult, not_started, worker_seconds

    stderr, report = _supervisor.split_report(outcome.stderr_bytes)
    stopped = _supervisor.stopped_while_held(report)
    if stopped is None and ended_held and not outcome.timed_out:
        stopped = f"the sandbox ended (return code {outcome.returncode}) while it waited"
    if stopped is not None:
        raise not_started(stopped, report)
    notes = list(notes)
    if report is None:
        notes.append("the sandbox supervisor did not report (killed from outside, or the sandbox "
                     "could not start); return code and timeout are the host's view")
        returncode, timed_out, truncated = outcome.returncode, outcome.timed_out, \
            outcome.truncated
    else:
        returncode, timed_out = report.get("returncode"), bool(report.get("timed_out"))
        truncated = bool(report.get("truncated")) or outcome.truncated
        notes += [str(n) for n in report.get("notes") or ()]
        if report.get("tree_killed") is False:
            notes.append("some processes of the worker survived the in-sandbox kill; the host "
                         "killed them")
    timed_out = timed_out or outcome.timed_out
    channel = report.get("channel") if isinstance(report, dict) else None
    return ExecResult(None if timed_out else returncode, timed_out, outcome.wall_s,
                      outcome.stdout, stderr.decode("utf-8", "replace"), truncated, tuple(notes),
                      channel if isinstance(channel, dict) else None, worker_seconds(report))
