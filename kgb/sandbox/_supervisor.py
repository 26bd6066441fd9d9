"""The in-sandbox supervisor: the one trusted process between a backend and the untrusted worker.

It runs *inside* the sandbox (as `python -I -S _supervisor.py CONFIG_JSON`, standard library
only, because it must also run from a bare imported image), and:

1. (bwrap) takes the host output folder, which bwrap bound at a hidden path, as an open directory
   descriptor and detaches that mount, so the worker can never see or write the host folder;
2. starts the worker in its own session with exactly the given environment, stdin from
   /dev/null, rlimits applied, privileges dropped (another uid, or no capabilities) and
   no_new_privs set; the supervisor itself is made non-dumpable so a same-uid worker cannot
   ptrace it or open its descriptors through /proc;
3. keeps the first `log_bytes` of the worker's stdout and stderr, draining and dropping the rest
   (a 10 GB stdout costs time, never memory or disk);
4. kills the worker's whole tree when the worker ends or its wall time runs out: every process
   it may signal (`kill(-1)`) inside a pid namespace or container, or, in the `process` backend,
   every descendant (it is a child subreaper, so double-forked escapees are re-parented to it);
5. (bwrap) copies regular files and folders from the size-capped output tmpfs to the host
   folder, never following links;
6. writes the kept logs, then one report line on stderr (REPORT_TAG + JSON) that the host
   parses: the worker's return code, whether it timed out, whether a log was truncated;
7. (with `channel`) is the worker's clock and notary: the worker writes `M <label>` lines on
   fd 3 and the supervisor records when each arrived, on its own clock; for `C <case> <json>`
   (the fingerprints of a timing loop's outputs) it answers on fd 4 with the indices of the
   outputs to keep, drawn from a secret the worker cannot read (this process is non-dumpable
   and the secret never leaves its memory), after the fingerprints were committed. Both go
   into the report: timing windows and re-check choices the worker can neither forge nor
   predict. `B +` / `B -` open and close a compile/autotune interval: the run-time deadline
   (`timeout_s`) moves out by the time spent inside them, on this clock, up to
   `compile_budget_s` — autotuning is honest work with its own budget, while a kernel that
   hangs outside any compile is stopped at the run-time limit. `S +` / `S -` open and close
   the worker's start-up (Python, torch, Triton, the device, up to the candidate's import),
   which draws on the same budget: on a loaded machine start-up takes 10-20 s, and a verdict
   must not depend on the load, so the run-time limit starts when the candidate's import
   begins. After start-up, the time the worker's main thread was ready to run but waited for
   a CPU (its run-queue delay, /proc/PID/schedstat) is credited the same way: other load on
   the machine slows the worker, never its verdict. A worker that lies here, or loads the
   machine itself to wait longer, gains at most the compile budget it was given anyway.
8. (with `hold`, a warm start) starts the worker at once but holds it: the worker imports
   Python, torch and Triton, then waits for one line on its answer fd. The supervisor waits for
   `go` on its own stdin (from the host, when the job's slot is free), and only then starts its
   clocks, reads the channel and answers the worker `G`; EOF instead of `go` (the host abandoned
   the start) kills the worker. The run-time limit, the start-up credit and `wall_s` all count
   from `go`: the wait is the previous job's time, never this one's.
9. (with `lock`, several jobs sharing a GPU: kgb/runner/gpu_share.py) is the worker's only way
   to the GPU's exclusive timing lock. `T +` from the worker becomes a live line on this
   process's stdout (LOCK_TAG + `+`, read by the host while we run; nothing else is written
   there before the end, where LOCK_TAG + `end` closes the live part); the host answers
   `granted exclusive` (or `granted shared`: the GPU did not drain) on our stdin, and only then
   do we answer the worker `T`. `T -` (or the worker's end) closes the window, and the host
   hears `-`. Each granted window goes into the report on our clock ([start, end, exclusive,
   revoked]); the host may `revoke` a window held past its bound. While another job holds the
   lock the host freezes this whole sandbox (SIGSTOP or the cgroup freezer) and, before
   thawing it, writes `frozen <seconds>`: the run-time deadline moves out by that much and
   `wall_s` leaves it out (a verdict never depends on another job's window); stdin is read
   before every deadline check, so a wake never times out a job whose credit is queued.
10. (with `hand_over`, a byte count: outputs are read in place, issue 24 "bytes moved once")
   once the worker's tree is proven dead (`tree_killed`), sweeps the output tmpfs in place
   with `_copy_out`'s filter (every entry that is not a regular file with a protocol name is
   unlinked: links, fifos, sockets, devices, folders, unknown names) instead of copying it.
   bwrap: copies out only the small files (the protocol's JSON and text files, outputs up to
   `hand_over` bytes), reports `held` (what stayed, and the folder's device and inode), ends
   its report with HELD_TAG and the nonce the host wrote first on our stdin (a worker never
   saw it, so it cannot forge the line), and stays alive, holding the sandbox's mount
   namespace, until the host writes `release` (EOF too) — or `copy`, where the host cannot
   read through /proc/PID/root: then it copies out as step 5 and ends. docker: reports
   `swept` and ends; the container (its idle process) holds the folder. With the tree not
   proven dead, step 5 as before: nothing is read where a survivor could still write.

Host-side helpers (`command`, `split_report`) live here too so both sides share one format.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import hmac
import json
import os
import random
import resource
import secrets
import selectors
import signal
import stat
import sys
import time

REPORT_TAG = b"\n@@kgb-supervisor@@ "
LOCK_TAG = b"@@kgb-lock@@ "  # live lines on the supervisor's stdout (point 9)
HELD_TAG = b"@@kgb-held@@ "  # + the host's nonce: the last line of a held report (point 10)
MAX_FROZEN_S = 7 * 86400.0  # one `frozen` credit, at most (a host bug, not a lever)
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_CAPBSET_DROP = 1, 4, 24
_PR_SET_CHILD_SUBREAPER, _PR_SET_NO_NEW_PRIVS = 36, 38
_MNT_DETACH = 2
_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
# machine: (AUDIT_ARCH, clone, unshare, clone3)
_SYSCALLS = {"x86_64": (0xC000003E, 56, 272, 435), "aarch64": (0xC00000B7, 220, 97, 435)}
_RLIMITS = {"nproc": "RLIMIT_NPROC", "as": "RLIMIT_AS", "fsize": "RLIMIT_FSIZE",
            "core": "RLIMIT_CORE", "nofile": "RLIMIT_NOFILE"}


# ----------------------------------------------------------------------------- host side

def command(python: str, config: dict) -> list[str]:
    """argv that runs the supervisor with `config` under `python` (isolated, no site)."""
    return [python, "-I", "-S", os.path.abspath(__file__), json.dumps(config)]


def split_report(stderr: bytes) -> tuple[bytes, dict | None]:
    """(the worker's stderr, the supervisor's report or None if it never wrote one)."""
    at = stderr.rfind(REPORT_TAG)
    if at < 0:
        return stderr, None
    try:
        report = json.loads(stderr[at + len(REPORT_TAG):].decode())
    except (ValueError, RecursionError):  # a worker's line where no report came: a bomb too
        return stderr, None
    return stderr[:at], report if isinstance(report, dict) else None


def stopped_while_held(report: dict | None) -> str | None:
    """How a held start was stopped before `go` reached its supervisor (a signal to the
    supervisor while it waited), or why the worker could not be started at all (its folder,
    its program: kgb's set-up), or None. The candidate's code never ran then: kgb's side,
    never a verdict on the kernel (issue 28: a parent-death signal made a hang `crashed`)."""
    if isinstance(report, dict) and report.get("not_started"):
        return f"the worker could not be started in it: {report['not_started']}"
    if report is None or report.get("released", True) or report.get("interrupted") is None:
        return None
    return f"the sandbox's supervisor got signal {report['interrupted']}"


# --------------------------------------------------------------------------- sandbox side

class _Libc:
    def __init__(self) -> None:
        self.lib = ctypes.CDLL(None, use_errno=True)

    def prctl(self, option: int, arg: int) -> int:
        return self.lib.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0),
                              ctypes.c_ulong(0), ctypes.c_ulong(0))

    def umount_detach(self, path: str) -> None:
        if self.lib.umount2(path.encode(), _MNT_DETACH) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"umount2({path}): {os.strerror(err)}")

    def forbid_user_namespaces(self) -> bool:
        """A seccomp filter: unshare/clone with CLONE_NEWUSER fail with EPERM, clone3 with ENOSYS
        (libc falls back to clone). Returns False on an architecture it does not know."""
        arch = os.uname().machine
        if arch not in _SYSCALLS:
            return False
        audit_arch, nr_clone, nr_unshare, nr_clone3 = _SYSCALLS[arch]
        allow, eperm, enosys = 0x7FFF0000, 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS
        ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
        program = [
            (ld, 0, 0, 4),                # arch
            (jeq, 0, 8, audit_arch),      # another ABI (e.g. x32/i386 entry): allow
            (ld, 0, 0, 0),                # syscall number
            (jeq, 0, 1, nr_clone3),
            (ret, 0, 0, enosys),
            (jeq, 1, 0, nr_unshare),
            (jeq, 0, 3, nr_clone),
            (ld, 0, 0, 16),               # first argument (flags), low 32 bits
            (jset, 0, 1, 0x10000000),     # CLONE_NEWUSER
            (ret, 0, 0, eperm),
            (ret, 0, 0, allow),
        ]

        class Filter(ctypes.Structure):
            _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte),
                        ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]

        class Prog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]

        filters = (Filter * len(program))(*[Filter(*ins) for ins in program])
        prog = Prog(len(program), filters)
        if self.lib.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"seccomp: {os.strerror(err)}")
        return True

    def drop_all_caps(self) -> None:
        """Empty the bounding set and the permitted/effective/inheritable sets."""
        for cap in range(64):
            if self.prctl(_PR_CAPBSET_DROP, cap) != 0 and ctypes.get_errno() == errno.EINVAL:
                break
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, self
        data = (ctypes.c_uint32 * 6)()
        if self.lib.capset(header, data) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"capset: {os.strerror(err)}")


CHANNEL_FDS = (3, 4)  # in the worker: marks and commits out, the supervisor's answers in
CHANNEL_CAP = 4 << 20  # bytes the worker may send on the channel in all
MAX_KEEP = 4  # timed outputs kept for re-checking per commit
KEEP_BYTES = 8 << 30  # ... fewer when they would take more than this (one is always kept)
MAX_CLAIM_BYTES = 1 << 62  # a timed call's claimed output bytes, at most


def keep_count(calls: int, nbytes: int) -> int:
    """How many of `calls` timed outputs of `nbytes` each are kept for re-checking: a 6 GB
    output kept four times, next to the case calls', outgrows the output folder. A worker that
    overstates `nbytes` to be re-checked less is caught by the judge (D309)."""
    fits = KEEP_BYTES // max(1, nbytes)
    return min(calls, MAX_KEEP, max(1, fits))


def _child(cfg: dict, libc: _Libc, out_w: int, err_w: int,
           channel: tuple[int, int] | None = None, failed_w: int | None = None) -> None:
    """In the forked child: set up, then exec the worker. Never returns. Why it could not
    exec goes to `failed_w` too (close-on-exec: nothing arrives there once the worker runs)."""
    supervisor = os.getppid()
    try:
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        if channel is not None:
            os.dup2(channel[0], CHANNEL_FDS[0])  # dup2 leaves them inheritable across exec
            os.dup2(channel[1], CHANNEL_FDS[1])
        if cfg.get("setsid", True):  # its own session; in `process` it stays in ours, which the
            os.setsid()              # host kills as a group even if this supervisor is gone
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        for name, value in (cfg.get("rlimits") or {}).items():
            resource.setrlimit(getattr(resource, _RLIMITS[name]), (value, value))
        uid = cfg.get("uid")
        if uid is not None and os.geteuid() == 0 and uid != 0:
            gid = cfg.get("gid", uid)
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)  # from root to another uid: every capability is gone
        elif cfg.get("drop_caps"):
            libc.drop_all_caps()
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # after the uid change, which clears it
        if os.getppid() != supervisor:  # it died before that: do not run orphaned
            os._exit(127)
        if cfg.get("no_userns") and not libc.forbid_user_namespaces():
            os.write(2, b"kgb sandbox: no seccomp filter for this architecture\n")
        if cfg.get("cwd"):
            os.chdir(cfg["cwd"])
        argv = cfg["argv"]
        env = dict(cfg["env"])
        if channel is not None:  # the fds are the supervisor's to name (kgb.bench.channel)
            env["KGB_CHANNEL"] = ",".join(map(str, CHANNEL_FDS))
            if cfg.get("hold"):  # wait for `G` on the answer fd after the imports
                env["KGB_HOLD"] = "1"
            if cfg.get("lock"):  # ask for the GPU's timing lock before each timed window
                env["KGB_LOCK"] = "1"
            if cfg.get("hold_device"):  # held as a GPU tenant: the device may be readied
                env["KGB_HOLD_DEVICE"] = "1"
        os.execve(argv[0], argv, env)
    except BaseException as exc:
        os.write(2, f"kgb sandbox: cannot start the worker: {exc}\n".encode())
        if failed_w is not None:
            os.write(failed_w, str(exc)[:500].encode("utf-8", "replace"))
    os._exit(127)


def _visible_others(uid: int | None) -> list[int]:
    """Live processes we see, other than pid 1 and ourselves (optionally only those of uid)."""
    me, found = os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me):
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
            if state in (b"Z", b"X"):
                continue
            if uid is not None and os.stat(f"/proc/{name}").st_uid != uid:
                continue
        except (OSError, IndexError):
            continue
        found.append(int(name))
    return found


def _children() -> list[int]:
    pids: list[int] = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                pids += [int(p) for p in f.read().split()]
        except OSError:
            pass
    return pids


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _kill_everything(mode: str, uid: int | None, deadline_s: float = 10.0) -> bool:
    """Kill the worker's tree; True when nothing of it is left."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if mode == "descendants":  # we are a subreaper: every orphan is our child
            targets = _children()
            for pid in targets:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        else:  # a pid namespace or container: kill everything we may signal
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            targets = _visible_others(uid)
        _reap()
        if not targets:
            return True
        time.sleep(0.01)
    return False


def _sweep(src: str, keep: str) -> tuple[dict[str, int], int]:
    """Hand-over in place (point 10), once no process of the worker's tree is left: unlink
    every entry of the output folder that `_copy_out` would not copy (a name `keep` does not
    match, a link, a fifo, a socket, a device, a folder), and make what stays readable by its
    owner's group and others (the host may read it as another uid). Returns the regular files
    that stay, name -> size, and how many entries went. Nothing can swap an entry between
    these checks and the host's reads: no candidate process exists any more. Raises OSError
    where an entry could not be removed or made readable (a worker that took the folder's
    write permission away, say): nothing is held then, the caller copies out as before."""
    import re
    import shutil

    kept: dict[str, int] = {}
    removed = 0
    for entry in os.scandir(src):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            st = None
        if st is not None and stat.S_ISREG(st.st_mode) and re.match(keep, entry.name):
            os.chmod(entry.path, 0o644)  # a regular file, lstat'ed: nothing to follow
            kept[entry.name] = st.st_size
            continue
        removed += 1
        if st is not None and stat.S_ISDIR(st.st_mode):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    return kept, removed


def _hand_over(src: str, dst_fd: int, budget: int, keep: str, small: int) -> dict:
    """Sweep the output tmpfs in place, copy out only its small files (the protocol's JSON
    and text files, and outputs up to `small` bytes: a job folder keeps its small evidence),
    and describe what stays for the host to read through /proc/PID/root (point 10)."""
    files, removed = _sweep(src, keep)
    src_fd = os.open(src, os.O_RDONLY | os.O_DIRECTORY)
    try:
        copied = copy_small(src_fd, dst_fd, sorted(files.items()), small, budget)
    finally:
        os.close(src_fd)
    st = os.stat(src)
    return {"files": files, "ident": [st.st_dev, st.st_ino], "removed": removed,
            "copied_bytes": copied}


def copy_small(src_fd: int, dst_fd: int, files, small: int, budget: int) -> int:
    """Copy the small files of a handed-over folder (point 10: the protocol's JSON and text
    files, outputs up to `small` bytes) from `src_fd` into `dst_fd`, at most `budget` bytes;
    the bytes copied. Each source is opened by its plain name, never through a link, never
    blocking on a fifo, and must be a regular file. Shared by this supervisor (bwrap) and the
    host (kgb.sandbox.handover, docker)."""
    copied = 0
    for name, size in files:
        if (name.endswith(".safetensors") and size > small) or size > budget - copied:
            continue
        if not name or "/" in name or name in (".", ".."):
            raise OSError(errno.EINVAL, f"not a plain file name: {name[:80]!r}")
        fin = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=src_fd)
        try:
            if not stat.S_ISREG(os.fstat(fin).st_mode):  # OSError: what the callers catch
                raise OSError(errno.EINVAL, f"{name[:80]!r} is not a regular file")
            os.set_blocking(fin, True)
            fout = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644,
                           dir_fd=dst_fd)
            try:
                copied += _copy_file(fin, fout, budget - copied)
            finally:
                os.close(fout)
        finally:
            os.close(fin)
    return copied


def _copy_out(src: str, dst_fd: int, budget: int, keep: str | None = None) -> tuple[int, int]:
    """Copy regular files and folders under src into dst_fd; (bytes copied, entries skipped).
    With `keep` (a regular expression) only top-level regular files whose names match it."""
    import re

    copied = skipped = 0
    for entry in os.scandir(src):
        if keep is not None and not re.match(keep, entry.name):
            skipped += 1
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            skipped += 1
            continue
        if stat.S_ISDIR(st.st_mode) and keep is None:
            try:
                os.mkdir(entry.name, 0o755, dir_fd=dst_fd)
            except FileExistsError:
                pass
            sub = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dst_fd)
            try:
                c, s = _copy_out(entry.path, sub, budget - copied)
            finally:
                os.close(sub)
            copied, skipped = copied + c, skipped + s
        elif stat.S_ISREG(st.st_mode) and st.st_size <= budget - copied:
            try:
                fin = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                skipped += 1
                continue
            fout = os.open(entry.name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW,
                           0o644, dir_fd=dst_fd)
            try:
                copied += _copy_file(fin, fout, budget - copied)
            finally:
                os.close(fin)
                os.close(fout)
        else:
            skipped += 1
    return copied, skipped


def _copy_file(fin: int, fout: int, left: int) -> int:
    """Copy up to `left` bytes from fin to fout; the bytes copied. In the kernel (sendfile: no
    trip through this process's memory; 2-3x the read/write loop to disk for a 0.5 GiB output
    on the 2-core dev machine, docs/decisions.md), else by read and write."""
    copied = 0
    try:
        while left > 0:
            n = os.sendfile(fout, fin, None, min(left, 1 << 30))
            if n == 0:
                return copied
            copied, left = copied + n, left - n
        return copied
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP) or copied:
            raise
    while left > 0:  # sendfile refused before it copied anything: the plain way
        chunk = os.read(fin, min(1 << 20, left))
        if not chunk:
            break
        os.write(fout, chunk)
        copied, left = copied + len(chunk), left - len(chunk)
    return copied


_DEVNULL: list[int] = []


def _discard(fd: int) -> int:
    """Move what is in the pipe straight to /dev/null (splice: no copy); 0 at EOF or if the
    kernel cannot splice, so the caller falls back to read()."""
    if not hasattr(os, "splice"):
        return 0
    if not _DEVNULL:
        _DEVNULL.append(os.open(os.devnull, os.O_WRONLY))
    try:
        return os.splice(fd, _DEVNULL[0], 1 << 24)
    except OSError:
        return 0


class _Notary:
    """The supervisor's side of the channel (see the module docstring, point 7)."""

    def __init__(self, mark_r: int, reply_w: int, start: float, pid: int | None = None,
                 lock: bool = False) -> None:
        self.mark_r, self.reply_w, self.start, self.pid = mark_r, reply_w, start, pid
        self.lock = lock  # point 9: `T +`/`T -` go to the host; else they are answered `N`
        self.asking = False  # a `T +` sent to the host, not yet granted
        self.holding: list | None = None  # the open window: [start, None, exclusive, revoked]
        self.windows: list = []
        self.frozen_s = 0.0  # the host's `frozen` credits: seconds this sandbox was stopped
        self.secret = secrets.token_bytes(32)
        self.buffer = bytearray()
        self.received = 0
        self.marks: list = []
        self.commits: list = []
        self.compile_s = 0.0  # closed compile/autotune intervals, on our clock
        self.compiling_since: float | None = None
        self.startup_s = 0.0  # the worker's start-up (S + .. S -), on our clock
        self.starting_since: float | None = None
        self.started_up = False  # one start-up interval per worker, never reopened
        self.delay_base: float | None = None  # the worker's run-queue delay when start-up ended
        self.waited = 0.0  # the last reading: /proc/PID is gone once the worker is reaped

    def compile_seconds(self, now: float) -> float:
        """Time the worker has spent compiling or autotuning, the open interval included."""
        running = now - self.compiling_since if self.compiling_since is not None else 0.0
        return self.compile_s + running

    def waited_seconds(self) -> float:
        """Time the worker's main thread has waited for a CPU since its start-up ended (none
        before: start-up is credited whole); 0 for a worker that never announced one."""
        if self.delay_base is not None:
            self.waited = max(self.waited, _run_delay(self.pid) - self.delay_base)
        return self.waited

    def startup_seconds(self, now: float) -> float:
        """Time the worker has spent starting up, the open interval included."""
        running = now - self.starting_since if self.starting_since is not None else 0.0
        return self.startup_s + running

    def feed(self, chunk: bytes) -> None:
        self.received += len(chunk)
        if self.received > CHANNEL_CAP:
            return  # over the cap: the rest is not heard (the worker was flooding)
        self.buffer += chunk
        while b"\n" in self.buffer:
            line, _, rest = bytes(self.buffer).partition(b"\n")
            self.buffer = bytearray(rest)
            self._line(line.decode("utf-8", "replace"), round(time.monotonic() - self.start, 6))

    def _line(self, line: str, at: float) -> None:
        kind, _, rest = line.partition(" ")
        if kind == "M" and len(self.marks) < 10000:
            # with the main thread's run-queue wait so far: a timing window the host's other
            # work stretched is named, not ruled on (kgb.runner.speed)
            waited = _run_delay_reading(self.pid)
            self.marks.append([rest[:200], at, round(waited, 6) if waited is not None else None])
        elif kind == "B":
            now = time.monotonic()
            if rest == "+" and self.compiling_since is None:
                self.compiling_since = now
            elif rest == "-" and self.compiling_since is not None:
                self.compile_s += now - self.compiling_since
                self.compiling_since = None
        elif kind == "S":
            now = time.monotonic()
            if rest == "+" and not self.started_up:  # from our start: Python's own start-up
                self.started_up, self.starting_since = True, self.start
            elif rest == "-" and self.starting_since is not None:
                self.startup_s += now - self.starting_since
                self.starting_since = None
                self.delay_base = _run_delay(self.pid)
        elif kind == "T":
            self._timing_lock(rest, at)
        elif kind == "C" and len(self.commits) < 10000:
            case, _, payload = rest.partition(" ")
            try:
                claim = json.loads(payload)
                prints = [str(p)[:100] for p in claim["fingerprints"]][:1000]
                # Clamped: exec.json carries it, and the host's bounded reader refuses integers
                # beyond 2**64 (threat 38); a deep claim or 1e400 is no claim at all.
                nbytes = min(max(0, int(claim["bytes"])), MAX_CLAIM_BYTES)
            except (ValueError, TypeError, KeyError, OverflowError, RecursionError):
                prints, nbytes = [], 0
            digest = hmac.new(self.secret, (case + "\n" + "\n".join(prints)).encode(),
                              hashlib.sha256).digest()
            keep = sorted(random.Random(digest).sample(range(len(prints)),
                                                       keep_count(len(prints), nbytes)))
            self.commits.append({"case": case[:200], "fingerprints": prints, "keep": keep,
                                 "t": at, "bytes": nbytes})
            try:
                os.write(self.reply_w, (json.dumps(keep) + "\n").encode())
            except OSError:
                pass

    def _timing_lock(self, edge: str, at: float) -> None:
        """The worker asks for (`+`) or gives back (`-`) the GPU's timing lock (point 9)."""
        if edge == "+" and not self.asking and self.holding is None:
            if not self.lock or len(self.windows) >= 10000:
                self._answer(b"N\n")  # no lock here: the worker times unlocked (no speedup)
                return
            self.asking = True
            _write_all(1, LOCK_TAG + b"+\n")
        elif edge == "-" and (self.asking or self.holding is not None):
            self.close_window(at, revoked=False)

    def close_window(self, at: float, revoked: bool) -> None:
        if self.holding is None and not self.asking:
            return
        if self.holding is not None:
            self.holding[1], self.holding[3] = at, revoked
            self.windows.append(self.holding)
            self.holding = None
        self.asking = False
        if not revoked:  # a revoked window was taken back by the host: it knows
            _write_all(1, LOCK_TAG + b"-\n")

    def host_line(self, line: str) -> None:
        """A line the host wrote on our stdin after `go`: a grant, a revoke, a frozen credit."""
        at = round(time.monotonic() - self.start, 6)
        word, _, arg = line.strip().partition(" ")
        if word == "granted" and self.asking:
            self.asking = False
            self.holding = [at, None, arg == "exclusive", False]
            self._answer(b"T\n")
        elif word == "revoke" and self.holding is not None:
            self.close_window(at, revoked=True)
        elif word == "frozen":
            try:
                seconds = float(arg)
            except ValueError:
                return
            if 0 <= seconds <= MAX_FROZEN_S:
                self.frozen_s += seconds

    def host_gone(self) -> None:
        """The host closed our stdin: no grant will come; a waiting worker times unlocked."""
        if self.asking:
            self.asking = False
            self._answer(b"N\n")

    def _answer(self, line: bytes) -> None:
        try:
            os.write(self.reply_w, line)
        except OSError:
            pass

    def report(self) -> dict:
        windows = self.windows + ([self.holding] if self.holding is not None else [])
        return {"marks": self.marks, "commits": self.commits,
                "windows": windows, "frozen_s": round(self.frozen_s, 3),
                "flooded": self.received > CHANNEL_CAP,
                "compile_s": round(self.compile_seconds(time.monotonic()), 3),
                "startup_s": round(self.startup_seconds(time.monotonic()), 3),
                "waited_s": round(self.waited, 3)}


class _HostLines:
    """The host's lines on our stdin after `go` (point 9), read without blocking."""

    def __init__(self, notary: _Notary) -> None:
        self.notary, self.buffer, self.open = notary, b"", True
        os.set_blocking(0, False)

    def read(self) -> bool:
        """Read what is there; False once the host closed our stdin."""
        while self.open:
            try:
                chunk = os.read(0, 4096)
            except (BlockingIOError, InterruptedError):
                return True
            except OSError:
                chunk = b""
            if not chunk:
                self.open = False
                self.notary.host_gone()
                return False
            self.buffer += chunk
            while b"\n" in self.buffer:
                line, _, self.buffer = self.buffer.partition(b"\n")
                self.notary.host_line(line.decode("ascii", "replace"))
            self.buffer = self.buffer[-256:]
        return False

    def drain(self) -> None:
        if self.open:
            self.read()


def _run_delay(pid: int | None) -> float:
    """Seconds task `pid` has spent runnable but waiting for a CPU (0 where unreadable)."""
    reading = _run_delay_reading(pid)
    return reading if reading is not None else 0.0


def _run_delay_reading(pid: int | None) -> float | None:
    """Seconds task `pid` has spent runnable but waiting for a CPU; None where unreadable."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def _pump(cfg: dict, pid: int, out_r: int, err_r: int, notary: _Notary | None = None) -> dict:
    """Drain both pipes (and the channel), keep the heads, watch the deadline; returns the
    report."""
    cap = int(cfg["log_bytes"])
    kept = {out_r: bytearray(), err_r: bytearray()}
    dropped = {out_r: 0, err_r: 0}
    sel = selectors.DefaultSelector()
    for fd in kept:
        sel.register(fd, selectors.EVENT_READ)
    if notary is not None:
        sel.register(notary.mark_r, selectors.EVENT_READ)
    try:  # wake up the moment the worker exits (Linux 5.3+), not at the next poll
        exited_fd = os.pidfd_open(pid)
        sel.register(exited_fd, selectors.EVENT_READ)
    except (AttributeError, OSError):
        exited_fd = None
    start = time.monotonic()
    run_budget, compile_budget = float(cfg["timeout_s"]), float(cfg.get("compile_budget_s", 0))
    host = _HostLines(notary) if notary is not None and notary.lock else None
    if host is not None:
        sel.register(0, selectors.EVENT_READ)

    def frozen() -> float:
        return notary.frozen_s if notary is not None else 0.0

    def past_deadline(now: float) -> bool:
        """The run-time limit, moved out by start-up, compiling and waiting for a CPU, and by
        every second the host kept this sandbox frozen (point 9)."""
        if host is not None:  # a credit written before the thaw is heard before the check
            host.drain()
        now -= frozen()
        if now <= start + run_budget:
            return False
        credit = notary.compile_seconds(now) + notary.startup_seconds(now) + \
            notary.waited_seconds() if notary is not None else 0.0
        return now > start + run_budget + min(compile_budget, credit)

    deadline = 0.0  # set once the worker is gone: how long to wait for its pipes' EOF
    status, timed_out, tree_dead = None, False, True
    open_fds = set(kept)
    while open_fds or status is None:
        if not open_fds and exited_fd is None:  # the worker closed its pipes but still runs
            time.sleep(0.05)
        waiting = open_fds or exited_fd is not None
        for key, _ in (sel.select(timeout=0.05) if waiting else ()):
            if key.fd == exited_fd:
                sel.unregister(exited_fd)
                os.close(exited_fd)
                exited_fd = None
                continue
            if host is not None and key.fd == 0:
                if not host.read():
                    sel.unregister(0)
                continue
            if notary is not None and key.fd == notary.mark_r:
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    notary.feed(chunk)
                else:
                    sel.unregister(key.fd)
                continue
            buf = kept[key.fd]
            if len(buf) >= cap:  # the head is kept: drop the rest without copying it
                moved = _discard(key.fd)
                if moved:
                    dropped[key.fd] += moved
                    continue
            chunk = os.read(key.fd, 1 << 20)
            if not chunk:
                sel.unregister(key.fd)
                open_fds.discard(key.fd)
                continue
            room = cap - len(buf)
            if room > 0:
                buf += chunk[:room]
            dropped[key.fd] += max(0, len(chunk) - max(room, 0))
        if status is None:
            if notary is not None:  # read before the worker can be reaped, for the report
                notary.waited_seconds()
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
            elif past_deadline(time.monotonic()):
                timed_out = True
                for kill in (os.killpg, os.kill):  # its group if it leads one, and itself
                    try:
                        kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                status = os.waitpid(pid, 0)[1]
            if status is not None:  # the worker is gone: nothing it started may outlive it
                tree_dead = _kill_everything(cfg.get("kill", "all"), cfg.get("kill_uid"))
                # whatever still holds the pipes now is beyond reach: stop waiting for EOF soon
                deadline = time.monotonic() + 2.0
        elif time.monotonic() > deadline:
            break
    for fd in list(open_fds):
        sel.unregister(fd)
    if exited_fd is not None:
        os.close(exited_fd)
    if host is not None and notary is not None:  # a window left open ends with the worker;
        host.drain()                                # then the live part ends
        notary.close_window(round(time.monotonic() - notary.start, 6), revoked=False)
        _write_all(1, LOCK_TAG + b"end\n")
    os.close(out_r)
    os.close(err_r)
    if os.WIFSIGNALED(status):
        code = -os.WTERMSIG(status)
    else:
        code = os.WEXITSTATUS(status)
    return {"returncode": None if timed_out else code, "timed_out": timed_out,
            "channel": notary.report() if notary is not None else None,
            "truncated": bool(dropped[out_r] or dropped[err_r]),
            "dropped_bytes": dropped[out_r] + dropped[err_r], "tree_killed": tree_dead,
            "wall_s": round(time.monotonic() - start - frozen(), 4),
            "_stdout": bytes(kept[out_r]), "_stderr": bytes(kept[err_r])}


def main(argv: list[str]) -> int:
    cfg = json.loads(argv[1])
    libc = _Libc()
    stop = {"signal": None}

    def on_signal(signum, _frame):  # the host asked us to stop: the finally below cleans up
        stop["signal"] = signum
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if cfg.get("kill") == "descendants":
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    libc.prctl(_PR_SET_DUMPABLE, 0)
    notes: list[str] = []
    export_fd = None
    if cfg.get("export"):
        export_fd = os.open(cfg["export"], os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        libc.umount_detach(cfg["export"])
    for path in cfg.get("chown", ()):  # folders the dropped-privilege worker must own
        os.chown(path, cfg["uid"], cfg.get("gid", cfg["uid"]))
        os.chmod(path, 0o700)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    channel = None
    if cfg.get("channel"):
        mark_r, mark_w = os.pipe()
        reply_r, reply_w = os.pipe()
        channel = (mark_w, reply_r)
    # Hand-over in place (point 10): the host's secret for this sandbox, first on our stdin,
    # before the worker exists: the line that says "held" must be one no worker can forge.
    nonce = _read_nonce() if cfg.get("hand_over") is not None and export_fd is not None \
        else None
    failed_r, failed_w = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        os.close(out_r)
        os.close(err_r)
        os.close(failed_r)
        if channel is not None:
            os.close(mark_r)
            os.close(reply_w)
        _child(cfg, libc, out_w, err_w, channel, failed_w)
    os.close(out_w)
    os.close(err_w)
    os.close(failed_w)
    not_started = _read_all(failed_r).decode("utf-8", "replace")  # "" once the worker execs
    os.close(failed_r)
    notary = None
    released = not cfg.get("hold")  # a held worker waits for `go`: no candidate code before it
    try:
        if cfg.get("hold") and not _wait_for_go():
            _kill_everything(cfg.get("kill", "all"), cfg.get("kill_uid"), 5.0)
            os.write(2, REPORT_TAG + json.dumps({"returncode": None, "timed_out": False,
                                                 "abandoned": True}).encode() + b"\n")
            return 0
        released = True
        if channel is not None:
            os.close(mark_w)
            os.close(reply_r)
            notary = _Notary(mark_r, reply_w, time.monotonic(), pid, bool(cfg.get("lock")))
            if cfg.get("hold"):
                _write_all(reply_w, b"G\n")
        report = _pump(cfg, pid, out_r, err_r, notary)
        if not_started:  # kgb's side (its folders, its config): never the candidate's exit
            report["not_started"] = not_started
    except KeyboardInterrupt:
        _kill_everything(cfg.get("kill", "all"), cfg.get("kill_uid"), 5.0)
        os.write(2, REPORT_TAG + json.dumps({"returncode": None, "timed_out": False,
                                             "interrupted": stop["signal"],
                                             "released": released}).encode() + b"\n")
        return 125
    held = _settle(cfg, report, export_fd, nonce, notes)
    out, err = report.pop("_stdout"), report.pop("_stderr")
    report["notes"] = notes
    _write_all(1, out)
    _write_all(2, err + REPORT_TAG + json.dumps(report).encode() + b"\n" +
               (HELD_TAG + nonce + b"\n" if held and nonce else b""))
    if not held:
        return 0
    # Held: no process of the worker is left (tree_killed), so nothing here can ptrace us
    # any more; the host (another uid's view of this sandbox, or an unprivileged one) reads
    # the folder through /proc/OUR_PID/root, which a non-dumpable process refuses.
    libc.prctl(_PR_SET_DUMPABLE, 1)
    try:
        if _wait_for_release() == b"copy" and export_fd is not None:  # the host cannot read
            _copy_out(cfg["out_dir"], export_fd, int(cfg["out_bytes"]), cfg.get("keep"))
    except KeyboardInterrupt:
        return 125
    return 0


def _settle(cfg: dict, report: dict, export_fd: int | None, nonce: bytes | None,
            notes: list[str]) -> bool:
    """After the worker's tree was killed: copy the outputs out (steps 5), or hand them over
    in place (point 10) where the host asked and the tree is proven dead; True when held."""
    small = cfg.get("hand_over")
    dead = report.get("tree_killed") is True and not report.get("not_started")
    keep = cfg.get("keep")
    if export_fd is None:  # docker: the host copies (or reads in place) after we exit
        if small is not None and dead and keep:
            try:
                files, removed = _sweep(cfg["out_dir"], keep)
                st = os.stat(cfg["out_dir"])
                report["swept"] = {"files": files, "ident": [st.st_dev, st.st_ino],
                                   "removed": removed}
            except OSError as exc:
                notes.append(f"sweeping the output folder failed: {exc}")
        return False
    if small is not None and nonce and dead and keep:
        try:
            report["held"] = _hand_over(cfg["out_dir"], export_fd, int(cfg["out_bytes"]), keep,
                                        int(small))
            report["copied_bytes"] = report["held"]["copied_bytes"]
            return True
        except OSError as exc:  # what the sweep left is copied out the usual way
            notes.append(f"handing the outputs over in place failed ({exc}); copied out")
    try:
        copied, skipped = _copy_out(cfg["out_dir"], export_fd, int(cfg["out_bytes"]), keep)
        report["copied_bytes"] = copied
        if skipped:
            notes.append(f"{skipped} output entries were not copied out (names the protocol "
                         "does not know, links, devices, unreadable)")
    except OSError as exc:
        notes.append(f"copying outputs out failed: {exc}")
    return False


def _read_all(fd: int) -> bytes:
    data = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except InterruptedError:
            continue
        if not chunk:
            return data
        data += chunk


def _read_line() -> bytes | None:
    """One line from our stdin, byte by byte (nothing after it is consumed); None at EOF."""
    line = b""
    while not line.endswith(b"\n"):
        try:
            chunk = os.read(0, 1)
        except InterruptedError:
            continue
        except BlockingIOError:
            select_read([0])
            continue
        if not chunk:
            return None
        line += chunk
        if len(line) > 4096:  # the host writes short lines: anything else is no line of ours
            return None
    return line


def select_read(fds: list[int]) -> None:
    import select

    select.select(fds, [], [])


def _wait_for_go() -> bool:
    """Block until the host writes `go` on our stdin (True) or closes it (False). A `frozen`
    credit before it is skipped: a sandbox held as a GPU tenant is frozen through other jobs'
    windows while held, before its run time starts (kgb/sandbox/subproc.py `join_before`)."""
    while True:
        line = _read_line()
        if line is None or not line.startswith(b"frozen "):
            return line is not None and line.strip() == b"go"


def _read_nonce() -> bytes | None:
    """The host's `nonce <hex>` line (point 10); None if it sent none."""
    line = _read_line()
    word, _, value = (line or b"").strip().partition(b" ")
    if word != b"nonce" or not 16 <= len(value) <= 128 or not value.isalnum():
        return None
    return value


def _wait_for_release() -> bytes:
    """Held (point 10): block until the host writes `release` (the judge is done: end) or
    `copy` (it cannot read in place: copy out, then end); EOF is `release` — a host that died
    leaves no sandbox behind. Other lines (the timing lock's last words) are skipped."""
    while True:
        line = _read_line()
        if line is None:
            return b"release"
        if line.strip() in (b"release", b"copy"):
            return line.strip()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except BrokenPipeError:
            return
        view = view[n:]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
