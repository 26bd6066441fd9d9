"""JSON and TOML files in and out: one atomic writer for every JSON file kgb writes, and one
capped reader for every JSON or TOML file a user hands kgb (an oversized, unreadable or
malformed file is bad input with a one-line reason, never a traceback).

Neutral zone: the worker writes its result with `write_json_atomic` too (standard library
only)."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from kgb.errors import BadInput


def write_json_atomic(path: Path, data: Any, indent: int | None = None) -> Path:
    """Write `data` as JSON so that a reader sees the old file or the whole new one, never a
    half-written one (a temporary file in the same folder, then an atomic rename)."""
    return write_text_atomic(path, json.dumps(data, indent=indent, default=str))


def write_text_atomic(path: Path, text: str) -> Path:
    """`text` (UTF-8) to `path`, atomically as write_json_atomic."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_text(path: Path, cap: int, what: str, fix: str) -> str:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(cap + 1)
    except FileNotFoundError:
        raise BadInput(f"{what} {path} does not exist; {fix}") from None
    except IsADirectoryError:
        raise BadInput(f"{what} {path} is a folder, not a file; {fix}") from None
    except OSError as exc:
        raise BadInput(f"cannot read {what} {path} ({exc.strerror}); {fix}") from None
    if len(raw) > cap:
        raise BadInput(f"{what} {path} is larger than {cap} bytes; {fix}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{what} {path} is not UTF-8 text (byte {exc.start}); {fix}") from None


def read_json(path: Path, cap: int, what: str, fix: str) -> Any:
    """A JSON file a user gave kgb; `what` names it ("report"), `fix` says what to do."""
    text = read_text(path, cap, what, fix)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadInput(f"{what} {path} is not valid JSON ({str(exc)[:80]}); {fix}") from None


def read_toml(path: Path, cap: int, what: str, fix: str) -> dict[str, Any]:
    return parse_toml(read_text(path, cap, what, fix), f"{what} {path}", fix)


def parse_toml(text: str, where: str, fix: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{where} is not valid TOML ({exc}); {fix}") from None
