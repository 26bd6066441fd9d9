"""The `bwrap` backend (bubblewrap): docker's policy built from namespaces, for hosts without a
Docker engine (HPC clusters, VMs, the lent GPU machines).

The sandbox (see docs/sandboxes.md for the full policy):
- new pid, net (only a down loopback), ipc, uts and cgroup namespaces; `--die-with-parent`,
  `--new-session`; when kgb is not root also a user namespace;
- a fresh tmpfs root, remounted read-only, holding only: /usr and the /bin, /lib... links,
  ld.so.cache and /etc/alternatives, a generated /etc/passwd and /etc/group, the request's
  read-only paths at their own paths, the Python runtime — never the whole host, so the
  invoking user's home is unreadable except for a read-only path inside it;
- /tmp and the job's scratch folder: a tmpfs of `tmp_bytes`; /dev/shm: a small tmpfs; the
  output folder: a tmpfs of `output_bytes` (a hard cap kept by the kernel) that kgb's
  supervisor copies to the host folder once the worker's tree is dead — or, with
  `hand_over`, sweeps in place and holds until the judge has read it through
  /proc/PID/root (kgb/sandbox/handover.py), copying out only the small files;
- a minimal /dev, a fresh /proc (bwrap keeps /proc/sys read-only); for a GPU job the control
  nodes, the one GPU's /dev/nvidiaN and /sys read-only;
- the worker runs under the supervisor: as root kgb gives it a fresh unused uid (no
  capabilities, RLIMIT_NPROC counts only its own processes); otherwise the user namespace's
  capabilities are dropped; no_new_privs; rlimits for processes, memory (CPU jobs) and core;
  the in-sandbox timeout and the host's `Child.wait` deadline both kill the whole tree.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from kgb.sandbox import _supervisor, gpu
from kgb.sandbox.base import (
    ExecResult,
    Limits,
    MiB,
    Sandbox,
    SandboxRequest,
    SandboxUnavailable,
    Started,
    register_backend,
)
from kgb.sandbox.subproc import start_supervised

EXPORT = "/.kgb-export"  # where the host output folder is bound until the supervisor detaches it
SHM_BYTES = 64 * MiB
SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/alternatives", "/etc/localtime")
UID_BASE = 2_000_000_000  # as root, each job runs as an unused uid from here
STATE_PREFIX = "kgb-bwrap-"  # host temp folders (generated /etc files); `kgb sandbox clean`


def _binary() -> str | None:
    return os.environ.get("KGB_BWRAP") or shutil.which("bwrap")


def _namespace_args() -> list[str]:
    args = ["--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-pid",
            "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "kgb"]
    if os.geteuid() != 0:  # unprivileged: a user namespace, root inside it for the supervisor
        # (not --disable-userns: its nested namespace would cost the supervisor the right to
        # detach the export mount; the worker's seccomp filter forbids user namespaces)
        args += ["--unshare-user", "--uid", "0", "--gid", "0", "--cap-add", "ALL"]
    return args


@functools.lru_cache(maxsize=1)
def _probe() -> str | None:
    binary = _binary()
    if binary is None:
        return "bubblewrap is not installed (apt-get install bubblewrap, or set KGB_BWRAP)"
    argv = [binary, *_namespace_args(), "--ro-bind", "/usr", "/usr", *_system_links(),
            "--proc", "/proc", "--dev", "/dev", "--", "/usr/bin/true"]
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot run: {exc}"
    if proc.returncode != 0:
        line = proc.stderr.decode(errors="replace").strip().splitlines()
        return (f"bwrap cannot create its namespaces here: {line[-1] if line else proc.returncode}"
                " (unprivileged user namespaces disabled? try as root or enable "
                "kernel.unprivileged_userns_clone)")
    return None


def _system_links() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def _ro_paths(request: SandboxRequest) -> list[str]:
    """Read-only paths, real and as given, plus the Python runtime and the supervisor; minus
    what /usr covers."""
    wanted = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix),
              os.path.dirname(os.path.realpath(sys.executable)),
              os.path.realpath(_supervisor.__file__)}  # the sandbox's own entry point
    for p in request.ro_paths:
        wanted.add(str(p))
        wanted.add(os.path.realpath(p))
    paths = sorted(p for p in wanted if os.path.exists(p) and not _covered(p))
    # a path inside another one is already visible (and binding it again would hide nothing)
    return [p for p in paths if not any(p.startswith(q + "/") for q in paths if q != p)]


def _covered(path: str) -> bool:
    """Already in the sandbox: /usr, /proc, /dev. Not /dev/shm, the sandbox's own small
    tmpfs: a run folder there (`--out /dev/shm/...`, RAM-backed room for GB-sized outputs)
    is bound like any other path."""
    if path.startswith("/dev/shm/"):
        return False
    return any(path == d or path.startswith(d + "/") for d in ("/usr", "/proc", "/dev"))


def _parents(path: str, made: set[str]) -> list[str]:
    """`--dir` for each missing ancestor of path: bwrap would otherwise create them 0700 (as
    /root on the host), which an unprivileged worker could not traverse."""
    args: list[str] = []
    parts = Path(path).parts[1:-1]
    for i in range(len(parts)):
        folder = "/" + "/".join(parts[:i + 1])
        if folder not in made:
            args += ["--perms", "0755", "--dir", folder]
            made.add(folder)
    return args


def _write_etc(folder: Path, uid: int) -> tuple[Path, Path]:
    passwd, group = folder / "passwd", folder / "group"
    passwd.write_text(f"root:x:0:0:root:/:/usr/sbin/nologin\n"
                      f"kgb:x:{uid}:{uid}:kgb worker:/nonexistent:/usr/sbin/nologin\n"
                      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
    group.write_text(f"root:x:0:\nkgb:x:{uid}:\nnogroup:x:65534:\n")
    return passwd, group


@register_backend
class BwrapSandbox(Sandbox):
    name = "bwrap"
    isolation = "namespaces"
    enforced = ("wall_time_s", "memory_bytes", "max_processes", "output_bytes", "tmp_bytes",
                "log_bytes")
    output_in_ram = True  # a tmpfs; RLIMIT_AS does not count its pages

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return _probe()

    def run(self, request: SandboxRequest, limits: Limits) -> ExecResult:
        return self._start(request, limits, hold=False).go()

    def start(self, request: SandboxRequest, limits: Limits) -> Started:
        return self._start(request, limits, hold=request.channel)

    def _start(self, request: SandboxRequest, limits: Limits, hold: bool) -> Started:
        binary = _binary()
        if binary is None or _probe():
            raise SandboxUnavailable(f"sandbox 'bwrap' is unavailable: {_probe()}")
        root = os.geteuid() == 0
        uid = UID_BASE + secrets.randbelow(100_000_000) if root else 0
        state = Path(tempfile.mkdtemp(prefix=f"{STATE_PREFIX}{os.getpid()}-"))
        try:
            argv, config, notes = self._command(binary, request, limits, state, uid, root)
        except BaseException:
            shutil.rmtree(state, ignore_errors=True)
            raise

        def clean() -> None:
            shutil.rmtree(state, ignore_errors=True)

        return start_supervised(argv, sys.executable, config, limits, notes=notes,
                                cancel=request.cancel, on_end=clean, hold=hold,
                                share=request.share, label=request.label)

    def _command(self, binary: str, request: SandboxRequest, limits: Limits, state: Path,
                 uid: int, root: bool) -> tuple[list[str], dict, list[str]]:
        passwd, group = _write_etc(state, uid)
        out, tmp = str(request.out_dir), str(request.tmp_dir)
        args = [binary, *_namespace_args(), "--ro-bind", "/usr", "/usr", *_system_links(),
                "--perms", "0755", "--dir", "/etc"]  # (implicit parents would be 0700)
        for path in ETC_FILES:
            args += ["--ro-bind-try", path, path]
        args += ["--ro-bind", str(passwd), "/etc/passwd", "--ro-bind", str(group), "/etc/group"]
        args += ["--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
                 "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
        made = {"/", "/usr", "/etc", "/tmp", "/dev", "/proc", *SYSTEM_DIRS}
        # The scratch folder's missing parents 0755 first: implicit ones would be 0700 and
        # hide an output folder beside it (/tmp/x/scratch beside /tmp/x/out: the worker could
        # not enter its own folder, and every job failed to start).
        args += _parents(tmp, made)
        if tmp == "/tmp" or tmp.startswith("/tmp/"):
            args += ["--perms", "0700", "--dir", tmp]
        else:
            args += ["--perms", "0700", "--size", str(limits.tmp_bytes), "--tmpfs", tmp]
        made.add(tmp)
        for path in _ro_paths(request):  # after /tmp, so folders under /tmp stay visible
            args += _parents(path, made) + ["--ro-bind", path, path]
            made.add(path)
        args += _parents(out, made) + ["--bind", out, EXPORT,
                 "--perms", "0700", "--size", str(limits.output_bytes), "--tmpfs", out]
        env = dict(request.env)
        notes: list[str] = []
        if request.device.startswith("cuda"):
            args += self._gpu_args(request.device, env, notes)
        args += ["--remount-ro", "/", "--clearenv", "--chdir", "/", "--"]
        rlimits = {"core": 0, "nproc": limits.max_processes}
        if request.device == "cpu":
            rlimits["as"] = limits.memory_bytes
        else:
            notes.append("memory limit not enforced by the bwrap backend on GPU (RLIMIT_AS "
                         "breaks CUDA); the wall time still bounds the job")
        config = {"argv": list(request.argv), "env": env,
                  "cwd": str(request.cwd or request.out_dir), "rlimits": rlimits,
                  "kill": "all", "export": EXPORT, "out_dir": out, "no_userns": True,
                  "out_bytes": limits.output_bytes, "keep": request.keep_names,
                  "channel": request.channel}
        if request.hand_over is not None and request.keep_names:  # outputs read in place
            config["hand_over"] = request.hand_over  # (_supervisor.py point 10)
        if root:
            config.update(uid=uid, gid=uid, chown=[out, tmp])
        else:
            config.update(drop_caps=True)
        return args, config, notes

    @staticmethod
    def _gpu_args(device: str, env: dict[str, str], notes: list[str]) -> list[str]:
        args: list[str] = []
        for node in gpu.CONTROL_NODES:
            args += ["--dev-bind-try", node, node]
        chosen = gpu.resolve(device)
        if chosen is not None and chosen.node and os.path.exists(chosen.node):
            args += ["--dev-bind", chosen.node, chosen.node]
            if chosen.uuid:
                env["CUDA_VISIBLE_DEVICES"] = chosen.uuid
        else:
            notes.append("could not tell which /dev/nvidiaN is the job's GPU: every GPU node is "
                         "bound and only CUDA_VISIBLE_DEVICES selects it")
            for node in gpu.all_nodes():
                args += ["--dev-bind", node, node]
        return args + ["--ro-bind", "/sys", "/sys"]
