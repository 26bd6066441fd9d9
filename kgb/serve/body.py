"""A POST /v1/verify body, hostile until proven otherwise, turned into a VerifyRequest or an
HttpError (a status and one line). JSON goes through kgb's bounded reader; an archive (base64
in the JSON, or a raw application/x-tar / application/gzip body) is decompressed under a cap
and unpacked by kgb.submission's safe loader — never tarfile.extract."""

from __future__ import annotations

import base64
import binascii
import zlib
from pathlib import Path

from kgb.errors import BadInput, quoted
from kgb.jsonfiles import Bounds, Refused, loads_json
from kgb.serve.executor import VerifyRequest
from kgb.tasks.index import SuiteIndex
from kgb.tasks.spec import unknown_task

UNPACKED_CAP = 64 << 20  # an archive's tar stream after gzip: a bomb stops here
JSON_DEPTH = 8  # the body is one flat object; anything deeper is not a request
TAR_TYPES = ("application/x-tar", "application/gzip", "application/x-gzip")


class HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def parse_verify(body: bytes, content_type: str, index: SuiteIndex,
                 scratch: Path) -> VerifyRequest:
    """`scratch`: an empty folder the request owns (an archive is unpacked there)."""
    kind = content_type.split(";")[0].strip().lower()
    if kind in TAR_TYPES:
        return _archive(body, index, scratch)
    if kind not in ("application/json", ""):
        raise HttpError(415, f"Content-Type {quoted(kind, 60)}: send application/json or "
                             "application/x-tar")
    try:
        data = loads_json(body, Bounds(max_bytes=len(body), max_depth=JSON_DEPTH),
                          "request body")
    except Refused as exc:
        raise HttpError(400, exc.message) from None
    if not isinstance(data, dict):
        raise HttpError(400, 'request body must be a JSON object: {"task": ID, "source": "..."} '
                             'or {"archive": BASE64}')
    keys = set(data)
    if keys == {"archive"}:
        if not isinstance(data["archive"], str):
            raise HttpError(400, '"archive" must be a base64 string of a submission .tar(.gz)')
        try:
            raw = base64.b64decode(data["archive"], validate=True)
        except (binascii.Error, ValueError):
            raise HttpError(400, '"archive" is not valid base64') from None
        return _archive(raw, index, scratch)
    if keys != {"task", "source"}:
        extra = sorted(keys - {"task", "source"})
        what = f"unknown field {quoted(extra[0], 40)}" if extra else "missing field " + \
            quoted(sorted({"task", "source"} - keys)[0])
        raise HttpError(400, f'{what}; send {{"task": ID, "source": "..."}} or '
                             '{"archive": BASE64}')
    task, source = data["task"], data["source"]
    if not isinstance(task, str) or not isinstance(source, str):
        raise HttpError(400, '"task" and "source" must be strings')
    _check_task(task, index)
    return VerifyRequest((task,), source=source)


def _check_task(task: str, index: SuiteIndex) -> None:
    if task not in index:
        raise HttpError(404, unknown_task(task, index.ids()))


def _archive(raw: bytes, index: SuiteIndex, scratch: Path) -> VerifyRequest:
    from kgb.submission import load_submission

    if raw[:2] == b"\x1f\x8b":
        raw = _gunzip(raw)
    (scratch / "upload.tar").write_bytes(raw)
    try:
        sub = load_submission(scratch / "upload.tar", scratch / "submission")
    except BadInput as exc:
        raise HttpError(400, exc.message.replace(str(scratch / "upload.tar"), "archive")) \
            from None
    finally:
        (scratch / "upload.tar").unlink()
    if not sub.kernels:
        raise HttpError(400, "the archive's manifest names no kernels")
    for kernel in sub.kernels:
        _check_task(kernel.task, index)
    return VerifyRequest(tuple(dict.fromkeys(k.task for k in sub.kernels)),
                         submission=sub.root)


def _gunzip(raw: bytes) -> bytes:
    """The gzip stream decompressed, or 413 once it passes UNPACKED_CAP (a bomb)."""
    inflater = zlib.decompressobj(wbits=31)
    try:
        out = inflater.decompress(raw, UNPACKED_CAP)
        if inflater.unconsumed_tail or len(out) >= UNPACKED_CAP:
            raise HttpError(413, f"the archive unpacks to more than {UNPACKED_CAP} bytes")
        out += inflater.flush()
    except zlib.error as exc:
        raise HttpError(400, f"the archive is not valid gzip ({exc})") from None
    if len(out) > UNPACKED_CAP:
        raise HttpError(413, f"the archive unpacks to more than {UNPACKED_CAP} bytes")
    return out
