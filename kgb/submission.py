"""Safe loading of a submission: a .tar, .tar.gz or folder holding manifest.toml, kernels/*.py
and an optional tokens.jsonl.

Nothing from the archive is trusted. Members are read by kgb and written by kgb under the target
folder — never `tarfile.extract` — after refusing absolute paths, `..`, links, devices, files the
manifest does not name, and archives over the count and size caps (tar bombs). Each refusal is a
SubmissionError with one line saying what and how to fix it."""

from __future__ import annotations

import re
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from kgb.errors import SubmissionError, quoted
from kgb.manifest import DOCS, MANIFEST, parse_manifest

TOKEN_LOG = "tokens.jsonl"
MAX_FILES = 512
MAX_FILE_BYTES = 4 << 20  # a kernel file; the token log gets TOKEN_LOG_BYTES
TOKEN_LOG_BYTES = 512 << 20
MAX_TOTAL_BYTES = 1 << 30


@dataclass(frozen=True)
class Kernel:
    task: str
    file: str  # relative path as written in the manifest, e.g. "kernels/rms_norm.py"
    path: Path  # absolute path of the unpacked copy
    entry: str | None = None  # overrides the task's entry name when given


@dataclass(frozen=True)
class Submission:
    name: str
    generator: str
    model: str
    created: str
    root: Path
    kernels: tuple[Kernel, ...]
    token_log: Path | None
    declared_tokens: dict[str, int] | None
    digest: str = ""  # sha256 over its files' names and bytes: `kgb compare` tells runs apart

    def kernel_for(self, task_id: str) -> Kernel | None:
        return next((k for k in self.kernels if k.task == task_id), None)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "generator": self.generator, "model": self.model,
                "created": self.created, "kernels": len(self.kernels),
                "token_log": self.token_log is not None, "digest": self.digest}


def load_submission(source: Path, target: Path) -> Submission:
    """Unpack `source` into the empty folder `target` and parse its manifest."""
    if not source.exists():
        raise SubmissionError(f"{source}: no such file or folder; pass a .tar, .tar.gz or folder")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    files = read_files(source)
    manifest_text = files.get(MANIFEST)
    if manifest_text is None:
        nested = sorted(n for n in files if n.endswith("/" + MANIFEST))
        if nested:  # `tar cf x.tar mine/`: everything one folder down
            folder = nested[0][: -len(MANIFEST) - 1]
            raise SubmissionError(f"{source}: {MANIFEST} is inside the folder {quoted(folder)}, "
                                  f"not at the top level; pack the folder's contents: "
                                  f"tar -C {quoted(folder)} -cf ARCHIVE . ({DOCS})")
        raise SubmissionError(f"{source}: no {MANIFEST} at the top level; add one ({DOCS})")
    try:
        text = manifest_text.decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError(f"{source}: {MANIFEST} is not UTF-8 text; {DOCS}") from None
    manifest = parse_manifest(text, f"{source}: {MANIFEST}")
    named = {k.file for k in manifest.kernels}
    allowed = named | {MANIFEST, TOKEN_LOG}
    extra = sorted(set(files) - allowed)
    if extra:
        raise SubmissionError(f"{source}: {quoted(extra[0])} is not named by {MANIFEST}; remove "
                              f"it or list it under [[kernels]]")
    absent = sorted(named - set(files))
    if absent:
        raise SubmissionError(f"{source}: {MANIFEST} names {quoted(absent[0])} but the submission "
                              f"does not contain it")
    for name, data in files.items():
        out = target.joinpath(*PurePosixPath(name).parts)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    if TOKEN_LOG in files:
        _check_token_log(target / TOKEN_LOG, source)
    return Submission(
        name=manifest.name, generator=manifest.generator, model=manifest.model,
        created=manifest.created, root=target,
        kernels=tuple(Kernel(task=k.task, file=k.file,
                             path=target.joinpath(*PurePosixPath(k.file).parts),
                             entry=k.entry) for k in manifest.kernels),
        token_log=target / TOKEN_LOG if TOKEN_LOG in files else None,
        declared_tokens=manifest.declared_tokens, digest=files_digest(files))


def read_files(source: Path) -> dict[str, bytes]:
    """Every file of a submission folder or archive, by name, with all the refusals above. A
    lone `.py` file is not a submission: say how to verify one (`--task`)."""
    if source.is_dir():
        return _read_folder(source)
    if source.suffix == ".py":
        raise SubmissionError(f"{source} is one kernel file, not a submission: name its task, "
                              f"`kgb verify {source} --task ID` (`kgb tasks list`), or pass a "
                              f"folder or archive with {MANIFEST} ({DOCS})")
    return _read_tar(source)


def peek_manifest(source: Path):
    """The manifest of a submission folder or archive, read without unpacking it."""
    files = read_files(source)
    if MANIFEST not in files:
        return None
    try:
        return parse_manifest(files[MANIFEST].decode("utf-8"), f"{source}: {MANIFEST}")
    except UnicodeDecodeError:
        raise SubmissionError(f"{source}: {MANIFEST} is not UTF-8 text; {DOCS}") from None


def files_digest(files: dict[str, bytes]) -> str:
    """One sha256 over the names and contents (length-prefixed: no two file sets collide by
    moving bytes between a name and its content)."""
    import hashlib

    h = hashlib.sha256()
    for name in sorted(files):
        for part in (name.encode(), files[name]):
            h.update(len(part).to_bytes(8, "big") + part)
    return h.hexdigest()


def _check_token_log(path: Path, source: Path) -> None:
    """The token log read once now, before any job runs: a line over the bounded reader's
    limits (threat 38: a count of 10**400, a line nested 50,000 deep, NaN) refuses the
    submission here rather than failing the report after every job ran. Lines that are merely
    unusable (cut short, a field missing) stay findings of the cost section (docs/cost.md)."""
    from kgb.cost.usage import parse_log
    from kgb.errors import BadInput

    try:
        parse_log(path)
    except BadInput as exc:
        raise SubmissionError(f"{source}: {exc.message.replace(str(path), TOKEN_LOG)}") from None


def _check_name(name: str, source: Path) -> str:
    """Normalise a member name or refuse it."""
    path = PurePosixPath(name)
    if name.startswith("/") or path.is_absolute() or re.match(r"^[A-Za-z]:", name):
        raise SubmissionError(f"{source}: member {quoted(name)} has an absolute path; archive "
                              f"relative paths only")
    if ".." in path.parts:
        raise SubmissionError(f"{source}: member {quoted(name)} contains '..'; archive paths "
                              f"must stay inside the submission")
    parts = [p for p in path.parts if p not in ("", ".")]
    return "/".join(parts)


def _cap_for(name: str) -> int:
    return TOKEN_LOG_BYTES if name == TOKEN_LOG else MAX_FILE_BYTES


HEADER_DATA_CAP = 64 << 10  # PAX/GNU long-name headers: real ones are a few hundred bytes
_OPENERS = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "lzma"))


def _scan_headers(source: Path) -> None:
    """Walk the archive's raw 512-byte headers before `tarfile` sees it: tarfile reads a PAX or
    GNU long-name header's whole payload into memory (a 200 KB .tar.gz can name a 200 MiB one),
    so an oversized extended header, a member over the total cap or too many members is refused
    here, reading at most one header block at a time."""
    with open(source, "rb") as raw:
        magic = raw.read(6)
    module = next((m for prefix, m in _OPENERS if magic.startswith(prefix)), None)
    opener = __import__(module).open if module else open
    try:
        with opener(source, "rb") as stream:
            count = 0
            while True:
                block = stream.read(512)
                if len(block) < 512 or block == bytes(512):
                    return
                count += 1
                if count > 4 * MAX_FILES:
                    raise SubmissionError(f"{source}: more than {MAX_FILES} members; a "
                                          f"submission holds one kernel file per task")
                size = _header_size(block[124:136], source)
                kind = block[156:157]
                if kind in (b"x", b"g", b"L", b"K") and size > HEADER_DATA_CAP:
                    raise SubmissionError(f"{source}: an extended tar header claims {size} bytes "
                                          f"(over {HEADER_DATA_CAP}); re-create the archive "
                                          f"with `tar czf`")
                if size > MAX_TOTAL_BYTES:
                    raise SubmissionError(f"{source}: a member claims {size} bytes, over the "
                                          f"{MAX_TOTAL_BYTES}-byte cap for a submission")
                skip = (size + 511) // 512 * 512
                while skip > 0:  # read (not seek): compressed streams only go forward
                    chunk = stream.read(min(skip, 1 << 20))
                    if not chunk:
                        return
                    skip -= len(chunk)
    except (OSError, EOFError, ValueError) as exc:
        raise SubmissionError(f"{source}: not a readable .tar or .tar.gz ({exc}); create it "
                              f"with `tar czf`") from None


def _header_size(field: bytes, source: Path) -> int:
    if field[:1] and field[0] & 0x80:  # GNU base-256
        return int.from_bytes(field[1:], "big")
    text = field.split(b"\0", 1)[0].strip(b" \0")
    try:
        return int(text, 8) if text else 0
    except ValueError:
        raise SubmissionError(f"{source}: a tar header has a corrupt size field; re-create the "
                              f"archive with `tar czf`") from None


def _read_tar(source: Path) -> dict[str, bytes]:
    _scan_headers(source)
    try:
        tar = tarfile.open(source, mode="r:*")  # noqa: SIM115 - `with tar` below
    except (tarfile.TarError, OSError) as exc:
        raise SubmissionError(f"{source}: {_not_an_archive(source, exc)}; create it with "
                              f"`tar czf` (or pass the folder)") from None
    files: dict[str, bytes] = {}
    total = 0
    with tar:
        try:
            for count, member in enumerate(tar, start=1):
                if count > MAX_FILES:
                    raise SubmissionError(f"{source}: more than {MAX_FILES} members; a "
                                          f"submission holds one kernel file per task")
                name = _check_name(member.name, source)
                if member.isdir():
                    continue
                if member.issym() or member.islnk():
                    raise SubmissionError(f"{source}: member {quoted(member.name)} is a link; "
                                          f"archive regular files only")
                if not member.isfile():
                    raise SubmissionError(f"{source}: member {quoted(member.name)} is a device, "
                                          f"fifo or other special file; archive regular files only")
                if member.size > _cap_for(name):
                    raise SubmissionError(f"{source}: member {quoted(name)} is {member.size} "
                                          f"bytes, over the {_cap_for(name)}-byte cap")
                total += member.size
                if total > MAX_TOTAL_BYTES:
                    raise SubmissionError(f"{source}: unpacks to more than {MAX_TOTAL_BYTES} "
                                          f"bytes; remove what the manifest does not need")
                if name in files:
                    raise SubmissionError(f"{source}: member {quoted(name)} appears twice")
                handle = tar.extractfile(member)
                data = handle.read(member.size + 1) if handle else b""
                if len(data) != member.size:
                    raise SubmissionError(f"{source}: member {quoted(name)} is truncated or lies "
                                          f"about its size")
                files[name] = data
        except (tarfile.TarError, EOFError, OSError) as exc:
            raise SubmissionError(f"{source}: corrupt archive ({exc}); re-create it") from None
    return files


def _not_an_archive(source: Path, exc: BaseException) -> str:
    """Why tarfile could not open `source`, in a few words: its own message lists every
    compression it tried, one line each."""
    try:
        size = source.stat().st_size
    except OSError as err:
        return f"cannot be read ({err.strerror})"
    if size == 0:
        return "is empty (0 bytes), not a .tar or .tar.gz"
    if isinstance(exc, OSError):
        return f"cannot be read ({exc.strerror or exc})"
    return "is not a .tar or .tar.gz (neither a tar archive nor gzip, bz2 or xz data holding one)"


def _read_folder(source: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source).as_posix()
        if path.is_symlink():
            raise SubmissionError(f"{source}: {quoted(rel)} is a symbolic link; use regular files")
        if path.is_dir():
            continue
        if not path.is_file():
            raise SubmissionError(f"{source}: {quoted(rel)} is not a regular file")
        if len(files) >= MAX_FILES:
            raise SubmissionError(f"{source}: more than {MAX_FILES} files")
        size = path.stat().st_size
        if size > _cap_for(rel):
            raise SubmissionError(f"{source}: {quoted(rel)} is {size} bytes, over the "
                                  f"{_cap_for(rel)}-byte cap")
        total += size
        if total > MAX_TOTAL_BYTES:
            raise SubmissionError(f"{source}: holds more than {MAX_TOTAL_BYTES} bytes")
        files[rel] = path.read_bytes()
    return files
