"""JSON and TOML files in and out: one atomic writer for every JSON file kgb writes, and one
bounded reader for every JSON or TOML document kgb parses from a source it does not control
(threat 38, parser bombs): a worker's result files, a submission's manifest and token log, a
pricing file, a KernelBench probe's report, a folder handed to `kgb report --regrade`, and
later the body of a `kgb serve` request.

The reader caps what a parser could be made to do without limit: the bytes it reads, how deep
the document nests (counted by a linear scan before the JSON parser sees it, so no input makes
it recurse), and how large a number may be (an integer beyond `Bounds.max_int`, a float that
overflows, NaN and Infinity unless the caller allows them). Every failure — unreadable, over a
cap, malformed — is one typed error, `Refused`, whose message is one line; the caller turns it
into a verdict (D205) or exit 2. Limits: docs/formats.md, "Limits of the bounded reader".

Neutral zone: the worker reads its job.json and writes its result with these functions too
(standard library only)."""

from __future__ import annotations

import functools
import json
import math
import os
import re
import stat
import tomllib
from dataclasses import dataclass
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


# ------------------------------------------------------------------ the bounded reader
@dataclass(frozen=True)
class Bounds:
    """What one document may hold. The defaults fit every file kgb itself writes with room to
    spare (its deepest, a report, nests under 10 levels; its largest integers are 63-bit seeds
    and byte counts)."""

    max_bytes: int = 64 << 20
    max_depth: int = 64  # arrays and objects (JSON) or arrays and tables (TOML) inside each other
    max_int: int = 1 << 64  # |integer| above this is refused (no float or C conversion overflows)
    nonfinite: bool = False  # NaN, Infinity and floats that overflow to infinity

    @functools.cached_property
    def _decoder(self) -> json.JSONDecoder:
        """Made once per Bounds: the token log decodes a million lines with one."""
        return _decoder(self)


class Refused(BadInput):
    """A document the bounded reader would not parse. `message` is the whole line; `reason`
    the part after the document's name; `kind` is "read" (missing or unreadable), "syntax"
    (not JSON/TOML/UTF-8: often a file cut short) or "bounds" (over a cap: hostile or broken);
    `detail` the parser's own words for a syntax error."""

    def __init__(self, where: str, reason: str, kind: str, detail: str = "") -> None:
        super().__init__(f"{where} {reason}")
        self.reason, self.kind, self.detail = reason, kind, detail


class _OutOfBounds(Exception):
    """Raised by the parser hooks; becomes Refused(kind="bounds") once parsing stopped."""


def read_capped(path: Path, cap: int, where: str | None = None) -> bytes:
    """At most `cap` bytes of a regular file (a larger one is refused unread). The file is
    opened without blocking and checked to be a regular file first: a FIFO, a device such as
    /dev/zero or a folder put where a document should be is refused, never waited on."""
    name = where or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise Refused(name, "does not exist", "read") from None
    except OSError as exc:
        raise Refused(name, f"cannot be read ({exc.strerror})", "read") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Refused(name, "is a folder, not a file" if stat.S_ISDIR(mode)
                      else "is not a regular file", "read")
    with os.fdopen(fd, "rb") as handle:
        try:
            raw = handle.read(cap + 1)
        except OSError as exc:
            raise Refused(name, f"cannot be read ({exc.strerror})", "read") from None
    if len(raw) > cap:
        raise Refused(name, f"is over its {cap}-byte cap", "bounds")
    return raw


def decode(raw: bytes, where: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(where, f"is not UTF-8 text (byte {exc.start})", "syntax") from None


def loads_json(text: str | bytes, bounds: Bounds = Bounds(), where: str = "document") -> Any:
    """One JSON document within `bounds` (bytes are read as UTF-8), or Refused."""
    if len(text) > bounds.max_bytes:
        raise Refused(where, f"is over its {bounds.max_bytes}-byte cap", "bounds")
    if isinstance(text, bytes):
        text = decode(text, where)
    try:
        _check_depth(text, bounds.max_depth)
        return bounds._decoder.decode(text)
    except _OutOfBounds as exc:
        raise Refused(where, str(exc), "bounds") from None
    except RecursionError:  # unreachable after the depth scan; kept so no input can crash us
        raise Refused(where, f"is nested deeper than {bounds.max_depth} levels",
                      "bounds") from None
    except ValueError as exc:  # json.JSONDecodeError: cut short, corrupt, not JSON at all
        detail = str(exc)[:80]
        raise Refused(where, f"is not valid JSON ({detail})", "syntax", detail) from None


def loads_toml(text: str, bounds: Bounds = Bounds(), where: str = "document") -> dict[str, Any]:
    """One TOML document within `bounds`, or Refused. tomllib is pure Python: a deep array
    hits the interpreter's own recursion guard, which is caught; dotted keys nest without
    recursing, so the parsed tables are walked (iteratively) for depth and integers too."""
    if len(text) > bounds.max_bytes:
        raise Refused(where, f"is over its {bounds.max_bytes}-byte cap", "bounds")
    spaced = " ." in text or ". " in text or "\t" in text
    if _dotted_key(bounds.max_depth).search(_SPACED_DOT.sub(".", text) if spaced else text):
        raise Refused(where, f"is nested deeper than {bounds.max_depth} levels", "bounds")
    try:
        data = tomllib.loads(text, parse_float=_float_hook(bounds.nonfinite))
    except tomllib.TOMLDecodeError as exc:
        raise Refused(where, f"is not valid TOML ({exc})", "syntax") from None
    except _OutOfBounds as exc:
        raise Refused(where, str(exc), "bounds") from None
    except RecursionError:
        raise Refused(where, f"is nested deeper than {bounds.max_depth} levels",
                      "bounds") from None
    except ValueError:  # int() of a literal over Python's 4300-digit conversion limit
        raise Refused(where, f"holds an integer beyond {bounds.max_int:.3g}", "bounds") from None
    _check_tree(data, bounds, where)
    return data


# JSON outside strings, up to the next bracket: everything but quotes and brackets, and whole
# strings. Possessive (no backtracking): one pass over the text, whatever it holds.
_SKIP = re.compile(r'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+")*+')
_OPENERS = re.compile(r"[\[{]+")
_CLOSERS = re.compile(r"[\]}]+")


def _check_depth(text: str, limit: int) -> None:
    """_OutOfBounds when brackets outside strings nest deeper than `limit`. A linear scan: the
    parser after it never recurses deeper than the scan counted."""
    if text.count("[") + text.count("{") <= limit:
        return  # cannot nest deeper than it has openers: the common case costs two C scans
    depth, pos, end = 0, 0, len(text)
    while True:
        pos = _end(_SKIP, text, pos)
        if pos >= end or text[pos] == '"':
            return  # the end, or a string never closed: the parser stops there with an error
        if text[pos] in "[{":
            run = _end(_OPENERS, text, pos)
            depth += run - pos
            if depth > limit:
                raise _OutOfBounds(f"is nested deeper than {limit} levels")
        else:
            run = _end(_CLOSERS, text, pos)
            depth = max(0, depth - (run - pos))  # extra closers: a syntax error for the parser
        pos = run


def _end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    found = pattern.match(text, pos)
    return found.end() if found else pos


def _decoder(bounds: Bounds) -> json.JSONDecoder:
    """A decoder whose number hooks keep to `bounds` (about 1.3x json.loads on a token log
    line; a regex looking for big numbers first cost more than the hooks)."""
    digits = len(str(bounds.max_int)) + 1  # the sign

    def parse_int(literal: str) -> int:
        # The length test first: int() of a 5000-digit literal raises (Python's conversion
        # limit), and of a 4000-digit one costs quadratic time before we could refuse it.
        if len(literal) > digits or abs(value := int(literal)) > bounds.max_int:
            raise _OutOfBounds(f"holds an integer beyond {bounds.max_int:.3g} "
                               f"({len(literal.lstrip('-'))} digits)")
        return value

    return json.JSONDecoder(parse_int=parse_int, parse_float=_float_hook(bounds.nonfinite),
                            parse_constant=_constant_hook(bounds.nonfinite))


def _float_hook(nonfinite: bool) -> Any:
    def parse_float(literal: str) -> float:
        value = float(literal)
        if not nonfinite and not math.isfinite(value):
            raise _OutOfBounds(f"holds a number that is not finite ({literal[:20]})")
        return value

    return parse_float


def _constant_hook(nonfinite: bool) -> Any:
    def parse_constant(name: str) -> float:  # NaN, Infinity, -Infinity: not JSON, Python's
        if not nonfinite:
            raise _OutOfBounds(f"holds {name}, which is not a finite number")
        return float(name)

    return parse_constant


_SPACED_DOT = re.compile(r"[ \t]*\.[ \t]*")


@functools.lru_cache(maxsize=8)
def _dotted_key(limit: int) -> re.Pattern[str]:
    """A TOML key of more than `limit` dotted parts (a.b.c..., in a table header too; spaces
    around the dots removed first), looked for before tomllib sees it: tomllib's time grows
    with the square of a key's parts (20,000 parts took 14 s). A chain is tried only from its
    first part, so the search is linear. Conservative: such words inside a string count too."""
    part = r"""(?:[A-Za-z0-9_-]++|"[^"\n]*+"|'[^'\n]*+')"""
    return re.compile(rf"""(?<![A-Za-z0-9_\-."']){part}(?:\.{part}){{{limit}}}""")


def _check_tree(data: Any, bounds: Bounds, where: str) -> None:
    """Depth and integer bounds of parsed data, walked with a stack (no recursion)."""
    todo: list[tuple[Any, int]] = [(data, 1)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, (dict, list)):
            if depth > bounds.max_depth:
                raise Refused(where, f"is nested deeper than {bounds.max_depth} levels", "bounds")
            items = value.values() if isinstance(value, dict) else value
            todo.extend((item, depth + 1) for item in items)
        elif type(value) is int and abs(value) > bounds.max_int:
            raise Refused(where, f"holds an integer beyond {bounds.max_int:.3g}", "bounds")


# ------------------------------------------------------------------ user-given files
def read_text(path: Path, cap: int, what: str, fix: str) -> str:
    """A text file a user gave kgb; `what` names it ("report"), `fix` says what to do."""
    try:
        return decode(read_capped(path, cap, f"{what} {path}"), f"{what} {path}")
    except Refused as exc:
        raise BadInput(f"{exc.message}; {fix}") from None


def read_json(path: Path, cap: int, what: str, fix: str, bounds: Bounds | None = None) -> Any:
    """A JSON file a user gave kgb, within `bounds` (default: `cap` bytes, NaN and Infinity
    allowed: a report kgb wrote holds them where a measurement was not finite)."""
    text = read_text(path, cap, what, fix)
    try:
        return loads_json(text, bounds or Bounds(max_bytes=cap, nonfinite=True), f"{what} {path}")
    except Refused as exc:
        raise BadInput(f"{exc.message}; {fix}") from None


def read_toml(path: Path, cap: int, what: str, fix: str,
              bounds: Bounds | None = None) -> dict[str, Any]:
    return parse_toml(read_text(path, cap, what, fix), f"{what} {path}", fix,
                      bounds or Bounds(max_bytes=cap))


def parse_toml(text: str, where: str, fix: str, bounds: Bounds = Bounds()) -> dict[str, Any]:
    try:
        return loads_toml(text, bounds, where)
    except Refused as exc:
        raise BadInput(f"{exc.message}; {fix}") from None
