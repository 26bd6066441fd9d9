"""Outputs handed over in place (issue 24, "bytes moved once"): the host's side.

A sandbox whose worker's tree is proven dead has its output tmpfs swept by the supervisor
(kgb/sandbox/_supervisor.py, point 10: only regular files with protocol names stay) and is
kept alive until the judge is done. The trusted side reads the outputs where they are, through
/proc/PID/root/<out_dir> of a process inside the sandbox's mount namespace (bwrap: the
supervisor; docker: the container's idle process), instead of a copy to the host's disk.

The folder is named by its path, and every open checks that it is still the sandbox's: the
(st_dev, st_ino) the supervisor reported from inside (one tmpfs superblock: the same device
number in every mount namespace). A recycled pid, or the host's own folder at that path, has
another identity and is refused (kgb.judge.judge.load_outputs)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

Files = tuple[tuple[str, int], ...]


def described(report: dict | None, key: str) -> tuple[Files, tuple[int, int]] | None:
    """(files, ident) from the supervisor's `held` (bwrap) or `swept` (docker) report entry,
    only where its worker's tree was proven dead; None otherwise or when malformed."""
    if not isinstance(report, dict) or report.get("tree_killed") is not True:
        return None
    entry = report.get(key)
    if not isinstance(entry, dict):
        return None
    try:
        files = tuple(sorted((str(name), int(size)) for name, size in entry["files"].items()))
        dev, ino = (int(x) for x in entry["ident"])
    except (TypeError, KeyError, ValueError, AttributeError):
        return None
    if any("/" in name or name in (".", "..") for name, _ in files):
        return None
    return files, (dev, ino)


def locate(pids: Iterable[int], out_dir: str, ident: tuple[int, int],
           files: Files) -> str | None:
    """The first /proc/PID/root<out_dir> among `pids` that is the sandbox's folder (its
    identity is `ident`) and that this process can read (a held file opens); None where none
    is (another uid's root-owned container, a kernel that refuses): copy out instead."""
    for pid in pids:
        folder = f"/proc/{pid}/root{out_dir}"
        if readable(folder, ident, files):
            return folder
    return None


def readable(folder: str, ident: tuple[int, int], files: Files) -> bool:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != ident:
            return False
        for name, _ in files[:1]:  # a probe: the host may see the folder yet not its files
            os.close(open_regular(fd, name))
        return True
    except (OSError, ValueError):
        return False
    finally:
        os.close(fd)


def open_regular(dir_fd: int, name: str) -> int:
    """An fd on the regular file `name` directly inside `dir_fd`: never through a link, never
    blocking on a fifo, never a device or a folder (ValueError)."""
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not a plain file name: {name[:80]!r}")
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                 dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def copy_small(folder: str, dest: Path, files: Files, small: int, budget: int) -> int:
    """Copy the small held files (the protocol's JSON and text files, outputs up to `small`
    bytes) into the host folder `dest`, as the bwrap supervisor does (docker: its supervisor
    has no host folder). Bytes copied."""
    from kgb.sandbox._supervisor import copy_small as copy_between

    src = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    dst = os.open(dest, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        return copy_between(src, dst, files, small, budget)
    finally:
        os.close(src)
        os.close(dst)


def notes(files: Files, copied: int, report: dict | None, key: str) -> tuple[str, ...]:
    held = sum(size for _, size in files)
    said = [f"outputs handed over in place: {len(files)} files ({held} bytes) stay in the "
            f"sandbox's folder for the judge; {copied} bytes of small files copied out"]
    entry = report.get(key) if isinstance(report, dict) else None
    removed = entry.get("removed") if isinstance(entry, dict) else None
    if isinstance(removed, int) and removed > 0:
        said.append(f"{removed} output entries were swept (names the protocol does not know, "
                    "links, fifos, devices, folders)")
    return tuple(said)
