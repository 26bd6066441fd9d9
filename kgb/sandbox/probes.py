"""Hostile probes for `kgb sandbox check`, run INSIDE a sandbox as
`python -I [-S] probes.py NAME ARGS_JSON`. Standard library only (plus torch for `gpu`).

Each probe tries one thing a hostile kernel would try and prints one line
`KGB-PROBE <json>` saying how far it got; the trusted side (selfcheck.py) decides. Probes that
could do harm on an unisolated backend are bounded (a fork attempt of N processes, not a bomb;
writes of at most twice a cap) and undo what they did (files created in / are removed at once).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import sys
import time
from collections.abc import Callable

TAG = "KGB-PROBE "


def where(folder: str) -> str:
    """`$TMPDIR` and `$OUT` (the working folder, which is the job's output folder)."""
    return {"$TMPDIR": os.environ.get("TMPDIR", "/tmp"), "$OUT": os.getcwd()}.get(folder, folder)


def report(**facts) -> None:
    sys.stdout.write(TAG + json.dumps(facts) + "\n")
    sys.stdout.flush()


def network(targets: list, timeout: float = 2.0) -> None:
    connected, errors = [], {}
    for host, port in targets:
        try:
            with socket.create_connection((host, port), timeout=timeout):
                connected.append(f"{host}:{port}")
        except OSError as exc:
            errors[f"{host}:{port}"] = exc.__class__.__name__
    try:
        socket.getaddrinfo("example.com", 443)
        dns = True
    except OSError:
        dns = False
    try:
        interfaces = sorted(name for _, name in socket.if_nameindex())
    except OSError:
        interfaces = []
    report(connected=connected, errors=errors, dns=dns, interfaces=interfaces)


def write_root(folders: list) -> None:
    written = []
    for folder in folders:
        path = os.path.join(folder, f".kgb-probe-{os.getpid()}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            continue
        os.close(fd)
        os.unlink(path)  # never leave anything behind on a host that let us write
        written.append(folder)
    report(written=written)


def read_files(paths: list, home: str) -> None:
    read = {}
    for path in paths:
        try:
            with open(path, "rb") as f:
                read[path] = f.read(4096).decode("utf-8", "replace")
        except OSError:
            pass
    try:
        listing = sorted(os.listdir(home))
    except OSError:
        listing = None
    report(read=read, home_listing=listing)


def environment() -> None:
    with open("/proc/self/environ", "rb") as f:
        pairs = [item.split(b"=", 1) for item in f.read().split(b"\0") if item]
    report(env={k.decode(): v.decode() for k, v in (p for p in pairs if len(p) == 2)})


def processes(reversed_marker: str) -> None:
    marker = reversed_marker[::-1]  # given reversed, so our own command line does not match
    found, visible = [], 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        visible += 1
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{name}/{part}", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(f"{name}/{part}")
            except OSError:
                pass
    report(found=found, visible=visible)


def privileges() -> None:
    status = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            status[key] = value.strip()
    outside = os.geteuid()
    try:
        with open("/proc/self/uid_map") as f:
            for line in f:
                inside, out, count = (int(x) for x in line.split())
                if inside <= os.geteuid() < inside + count:
                    outside = out + os.geteuid() - inside
    except OSError:
        pass
    sysctl = False
    try:  # opening for write changes nothing; only a write() would
        os.close(os.open("/proc/sys/kernel/core_pattern", os.O_WRONLY))
        sysctl = True
    except OSError:
        pass
    devices = []
    userns = _can_unshare_user()
    for root in ("/dev", "/dev/pts"):
        try:
            names = os.listdir(root)
        except OSError:
            continue
        for name in names:
            path = os.path.join(root, name)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISBLK(mode) or stat.S_ISCHR(mode):
                devices.append(("b:" if stat.S_ISBLK(mode) else "c:") + path)
    report(cap_eff=status.get("CapEff"), no_new_privs=status.get("NoNewPrivs"),
           euid=os.geteuid(), outside_uid=outside, sysctl_writable=sysctl, devices=devices,
           userns=userns)


def _can_unshare_user() -> bool:
    """Can we make a user namespace (root inside it: kernel attack surface)? Tried in a child."""
    import ctypes

    pid = os.fork()
    if pid == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        os._exit(0 if libc.unshare(0x10000000) == 0 else 1)
    return os.waitpid(pid, 0)[1] == 0


def escape(marker: str, mode: str) -> None:
    """Double-fork a sleeper into a new session (a daemon escaping the job), then hang or exit."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-I", "-S", "-c",
                                      "import time\nwhile True: time.sleep(1)", marker])
        os._exit(0)
    time.sleep(0.3)
    report(spawned=True)
    if mode == "hang":
        while True:
            time.sleep(1)


def fork(attempts: int) -> None:
    created, error = 0, None
    for _ in range(attempts):
        try:
            pid = os.fork()
        except OSError as exc:
            error = exc.__class__.__name__
            break
        if pid == 0:
            signal.pause()
            os._exit(0)
        created += 1
    report(created=created, error=error)
    # leave the children: the sandbox must kill them


def fill(folder: str, limit: int, cleanup: bool) -> None:
    folder = where(folder)
    written, error = 0, None
    names: list[str] = []
    chunk = b"\0" * (1 << 20)
    try:
        while written < limit and error is None:
            name = os.path.join(folder, f"kgb-fill-{os.getpid()}-{len(names)}")
            names.append(name)
            with open(name, "wb") as f:
                for _ in range(4):
                    if written >= limit:
                        break
                    try:
                        f.write(chunk)
                        f.flush()
                    except OSError as exc:
                        error = f"{exc.__class__.__name__}: {exc.strerror}"
                        break
                    written += len(chunk)
    except OSError as exc:
        error = f"{exc.__class__.__name__}: {exc.strerror}"
    if cleanup:
        for name in names:
            try:
                os.unlink(name)
            except OSError:
                pass
    report(folder=folder, written=written, error=error)


def memory(limit: int) -> None:
    error = None
    blocks: list[bytes] = []
    step = 32 << 20
    try:
        while len(blocks) * step < limit:
            blocks.append(b"\x5a" * step)  # filled, so every page is really used
            print(f"allocated {len(blocks) * step}", flush=True)
    except MemoryError:
        error = "MemoryError"
    report(allocated=len(blocks) * step, error=error)


def flood(total: int, out_dir: str) -> None:
    out_dir = where(out_dir)
    start = time.monotonic()
    buf = b"x" * (1 << 20)
    written = 0
    try:
        while written < total:
            written += os.write(1, buf[:min(len(buf), total - written)])
    except OSError as exc:
        sys.stderr.write(f"flood stopped: {exc}\n")
    with open(os.path.join(out_dir, "flood.json"), "w") as f:
        json.dump({"written": written, "seconds": time.monotonic() - start}, f)


def gpu() -> None:
    import subprocess

    import torch

    count = torch.cuda.device_count()
    uuids = []
    for i in range(count):
        props = torch.cuda.get_device_properties(i)
        uuids.append(str(getattr(props, "uuid", "")))
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    hostile = subprocess.run([sys.executable, "-c",
                              "import torch; print(torch.cuda.device_count())"],
                             env=env, capture_output=True, text=True)
    try:
        without = int(hostile.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        without = None
    nodes = []
    for folder in ("/dev", "/dev/nvidia-caps"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            if name.startswith("nvidia") and stat.S_ISCHR(os.lstat(path).st_mode):
                nodes.append(path[len("/dev/"):])
    nodes.sort()
    report(count=count, uuids=uuids, count_without_env=without, nodes=nodes,
           error=hostile.stderr[-300:] if without is None else None, triton=_triton_add())


def _triton_add() -> str:
    """Compile and run a tiny Triton kernel on the GPU: the sandbox must stay usable."""
    try:
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)

        x = torch.arange(1000, device="cuda", dtype=torch.float32)
        y = torch.empty_like(x)
        add[(triton.cdiv(1000, 256),)](x, y, 1000, BLOCK=256)
        return "ok" if torch.equal(y, x + 1) else "wrong result"
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc)[:300]}"


PROBES: dict[str, Callable[..., None]] = {
          "network": network, "write_root": write_root, "read_files": read_files,
          "environment": environment, "processes": processes, "privileges": privileges,
          "escape": escape, "fork": fork, "fill": fill, "memory": memory, "flood": flood,
          "gpu": gpu}


def parse(stdout: str) -> dict | None:
    """The last KGB-PROBE line of a probe's stdout (the trusted side's reader)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(TAG):
            try:
                return json.loads(line[len(TAG):])
            except ValueError:
                return None
    return None


if __name__ == "__main__":
    PROBES[sys.argv[1]](**json.loads(sys.argv[2]))
