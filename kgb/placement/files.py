"""Folders as {relative path: bytes}, the form in which files cross between the host and a Ray
actor: task folders and the submission go out once per run, a finished job's folder comes
back. Only regular files travel (no links, devices or FIFOs); every name is checked on
arrival, so nothing is written outside the destination whatever a sender holds."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath

from kgb.errors import InfraError

Files = dict[str, bytes]


def pack(root: Path, cap: int, keep: Callable[[str], bool] = lambda _rel: True,
         optional: Callable[[str], bool] = lambda _rel: False) -> tuple[Files, tuple[str, ...]]:
    """Every regular file under `root` that `keep` accepts, at most `cap` bytes in all; an
    `optional` file (a large output kept as evidence) is left out — and named in the second
    value — where it would pass the cap; any other file past it is an InfraError."""
    files: Files = {}
    left: list[str] = []
    total = 0
    entries = sorted(_walk(root), key=lambda item: (optional(item[0]), item[0]))
    for rel, path, size in entries:
        if not keep(rel):
            continue
        if total + size > cap:
            if optional(rel):
                left.append(rel)
                continue
            raise InfraError(f"{root}: {rel} would take the folder past {cap} bytes")
        with open(path, "rb") as f:
            data = f.read(size + 1)
        if len(data) != size:
            raise InfraError(f"{root}: {rel} changed while it was read")
        files[rel] = data
        total += size
    return files, tuple(left)


def _walk(root: Path) -> list[tuple[str, Path, int]]:
    found = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        for name in names:
            path = Path(folder) / name
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):
                found.append((path.relative_to(root).as_posix(), path, info.st_size))
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
    return found


def safe_name(rel: str) -> PurePosixPath:
    """`rel` as a path that stays inside its destination, or an InfraError."""
    path = PurePosixPath(rel)
    if (not rel or "\0" in rel or "\\" in rel or path.is_absolute()
            or any(part in ("", ".", "..") for part in rel.split("/"))):
        raise InfraError(f"refused a transferred file name {rel[:80]!r}")
    return path


def unpack(files: Mapping[str, bytes], dest: Path) -> None:
    """Write `files` under `dest` (created), refusing names that leave it and never writing
    through an existing link."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        target = dest.joinpath(*safe_name(rel).parts)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        except OSError as exc:  # a name given twice, or a file where a folder must be
            raise InfraError(f"cannot write transferred file {rel[:80]!r}: {exc.strerror}") \
                from None
        with os.fdopen(fd, "wb") as f:
            f.write(data)
