"""Parse tokens.jsonl (one model call per line) into CallRecords with one canonical TokenUsage.

Providers count tokens differently, and getting that wrong double-charges or under-charges:

- OpenAI Chat Completions: `prompt_tokens` INCLUDES `prompt_tokens_details.cached_tokens`;
  `completion_tokens` INCLUDES `completion_tokens_details.reasoning_tokens`.
- OpenAI Responses API: the same with `input_tokens` / `input_tokens_details.cached_tokens` and
  `output_tokens` / `output_tokens_details.reasoning_tokens`.
- Anthropic: `input_tokens` EXCLUDES `cache_read_input_tokens` and
  `cache_creation_input_tokens` (three disjoint input buckets); thinking is billed inside
  `output_tokens` and not reported separately.
- generic (kgb's own form): `input`, `cached`, `cache_write` are disjoint input buckets, `output`
  includes `reasoning` — exactly the canonical TokenUsage below.

The canonical form is disjoint buckets, each billed at its own price: input (uncached), cached
(cache reads), cache_write, output (reasoning included); reasoning is informational only.

Speed matters (a million lines in seconds): one bounded JSON decode per line, plain dict lookups,
and one exception type for "this line is unusable" so the happy path has no branches for error
text.

Hostile logs (threat 38): every line goes through kgb's bounded reader (kgb.jsonfiles). A line cut
short or not JSON is a T101 finding, as loggers that crash leave such lines; a line over the
reader's bounds — nested deeper than LINE_BOUNDS allows, an integer beyond 2**64, NaN, Infinity,
a float that overflows, longer than MAX_LINE_BYTES — is no logging accident, and the whole log is
refused with BadInput naming the line (`kgb cost` exits 2; `kgb verify` refuses the submission
before any job runs)."""

from __future__ import annotations

import gc
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from kgb.errors import BadInput
from kgb.jsonfiles import Bounds, Refused, loads_json

# One call above this many tokens of any kind is beyond every current context window; such a
# count is almost always a logging bug (a cumulative counter, milliseconds logged as tokens).
ABSURD_TOKENS = 10_000_000
# Epoch seconds above this (year 5138) are almost surely epoch milliseconds; we refuse to guess.
MAX_EPOCH_SECONDS = 1e11
# One call's usage record is a few hundred bytes; a whole API response, a few hundred KiB.
MAX_LINE_BYTES = 4 << 20
LINE_BOUNDS = Bounds(max_bytes=MAX_LINE_BYTES, max_depth=32)


@dataclass(frozen=True, slots=True)
class TokenUsage:
    input: int  # uncached input tokens, billed at the input price
    cached: int  # input tokens read from a prompt cache, billed at the cached_input price
    cache_write: int  # input tokens written to a prompt cache, billed at the cache_write price
    output: int  # output tokens, reasoning included, billed at the output price
    reasoning: int | None  # the part of `output` spent reasoning; None: not reported

    @property
    def total(self) -> int:
        return self.input + self.cached + self.cache_write + self.output


@dataclass(frozen=True, slots=True)
class CallRecord:
    line: int  # 1-based line number in tokens.jsonl
    task: str
    attempt: int | str | None  # None: missing (a T109 issue says so)
    model: str
    usage: TokenUsage
    shape: str  # which usage form the line used: openai_chat, openai_responses, anthropic, ...
    started: float | None  # epoch seconds, UTC; None when either timestamp is unusable
    ended: float | None
    request_id: str | None


@dataclass(frozen=True, slots=True)
class LineIssue:
    """A problem seen while parsing one line; audit.py turns these into Findings."""

    line: int
    code: str  # a T1xx code of kgb.cost.findings.CODES
    reason: str  # short, shared by every line with the same problem (used to group them)
    detail: str = ""  # specific to this line (e.g. the JSON error position)


@dataclass(frozen=True)
class ParsedLog:
    path: str
    records: tuple[CallRecord, ...]
    issues: tuple[LineIssue, ...]
    lines: int  # non-blank lines read
    excluded: int  # non-blank lines not turned into a record (each has an error issue)


class _Hostile(Exception):
    """This line is over the reader's bounds: the log is refused whole."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class _Unusable(Exception):
    """This line cannot be counted; carries the issue that says why."""

    def __init__(self, code: str, reason: str, detail: str = "") -> None:
        self.code, self.reason, self.detail = code, reason, detail


def parse_log(path: Path) -> ParsedLog:
    """Every non-blank line becomes a CallRecord or an error LineIssue; nothing raises per line.

    Raises BadInput when the file itself cannot be read."""
    records: list[CallRecord] = []
    issues: list[LineIssue] = []
    try:
        # bytes: a bad UTF-8 byte spoils one line, not the whole read; closed by `with` below
        handle = open(path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        raise BadInput(f"token log {path} does not exist") from None
    except IsADirectoryError:
        raise BadInput(f"token log {path} is a folder; give the tokens.jsonl file") from None
    except OSError as exc:
        raise BadInput(f"cannot read token log {path}: {exc.strerror}") from None
    # The records hold no reference cycles, yet CPython's cyclic collector would re-scan the
    # growing list again and again while a million of them are made (a third of the parse
    # time). Pause it for the loop and restore it after, whatever happens.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with handle:
            lines, excluded = _read(handle, records, issues)
    except _Hostile as bad:
        raise BadInput(f"token log {path} {bad.reason}; a log of model calls holds nothing "
                       f"like it: fix or regenerate the log") from None
    finally:
        if collecting:
            gc.enable()
    return ParsedLog(str(path), tuple(records), tuple(issues), lines, excluded)


def _read(handle: BinaryIO, records: list[CallRecord], issues: list[LineIssue]
          ) -> tuple[int, int]:
    """The per-line loop; returns (non-blank lines, excluded lines)."""
    lines = excluded = 0
    number = 0
    while raw := handle.readline(MAX_LINE_BYTES + 1):  # a line without end never fills memory
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise _Hostile(f"line {number} is longer than {MAX_LINE_BYTES} bytes")
        if not raw.strip():
            continue  # blank lines (a trailing newline, spacing) carry nothing to lose
        lines += 1
        try:
            records.append(_parse_line(raw, number, issues))
        except _Unusable as bad:
            excluded += 1
            issues.append(LineIssue(number, bad.code, bad.reason, bad.detail))
    return lines, excluded


def _parse_line(raw: bytes, number: int, issues: list[LineIssue]) -> CallRecord:
    try:
        # Decoding first is faster than json.loads(bytes), which sniffs the encoding per line.
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unusable("T101", "not UTF-8 text") from None
    if number == 1 and text.startswith("\ufeff"):
        text = text[1:]  # a byte-order mark written by some Windows editors
    try:
        obj = loads_json(text, LINE_BOUNDS, "line")
    except Refused as exc:
        if exc.kind == "bounds":
            raise _Hostile(f"line {number} {exc.reason}") from None
        raise _Unusable("T101", "invalid JSON", exc.detail) from None
    if not isinstance(obj, dict):
        raise _Unusable("T101", "not a JSON object", type(obj).__name__)
    task = obj.get("task")
    if not isinstance(task, str) or not task:
        raise _Unusable("T102", "missing or non-string 'task'")
    model = obj.get("model")
    if not isinstance(model, str) or not model:
        raise _Unusable("T102", "missing or non-string 'model'")
    raw_usage = obj.get("usage", obj)  # usage under "usage", or its fields at the top level
    if not isinstance(raw_usage, dict):
        raise _Unusable("T102", "'usage' is not an object")
    usage, shape, largest = _normalize(raw_usage, number, issues)
    if largest > ABSURD_TOKENS:
        issues.append(LineIssue(number, "T107", f"more than {ABSURD_TOKENS:,} tokens in one call",
                                f"{largest:,}"))

    attempt = obj.get("attempt")
    kind = type(attempt)  # exact types: bools and floats are not attempt ids
    if not (kind is int or (kind is str and attempt)):
        issues.append(LineIssue(number, "T109", "missing or unusable 'attempt'",
                                "" if attempt is None else f"attempt={attempt!r}"))
        attempt = None

    started = ended = None
    try:
        started = _timestamp(obj.get("started"), "started")
        ended = _timestamp(obj.get("ended"), "ended")
    except _Unusable as bad:
        issues.append(LineIssue(number, bad.code, bad.reason, bad.detail))
        started = ended = None  # wall time needs a whole interval

    request_id = obj.get("request_id")
    if type(request_id) is not str:
        request_id = str(request_id) if type(request_id) is int else None
    elif not request_id:
        request_id = None
    return CallRecord(number, task, attempt, model, usage, shape, started, ended, request_id)


def _count(usage: dict, key: str, required: bool) -> int:
    value = usage.get(key)
    if type(value) is int:  # `type is` keeps bools out (True is an int to isinstance)
        if value < 0:
            raise _Unusable("T104", "negative token count", f"{key}={value}")
        return value
    if value is None:
        if required:
            raise _Unusable("T103", "required usage field missing", key)
        return 0  # SDK dumps write null for optional counters they did not fill
    raise _Unusable("T105", "non-integer token count", f"{key}={value!r}")


def _detail(usage: dict, parent: str, key: str) -> int | None:
    """A counter nested under e.g. prompt_tokens_details; None when not reported at all."""
    details = usage.get(parent)
    if details is None:
        return None
    if not isinstance(details, dict):
        raise _Unusable("T102", f"'{parent}' is not an object")
    if details.get(key) is None:
        return None
    return _count(details, key, required=True)


_CHAT = ("prompt_tokens", "completion_tokens")
_IO = ("input_tokens", "output_tokens")


def _normalize(u: dict, number: int, issues: list[LineIssue]) -> tuple[TokenUsage, str, int]:
    """(canonical usage, shape name, largest raw count) or _Unusable."""
    # Plain `in` tests, not any(...) over tuples: this runs once per line of a huge log.
    chat = "prompt_tokens" in u or "completion_tokens" in u
    io = "input_tokens" in u or "output_tokens" in u
    anthropic = "cache_read_input_tokens" in u or "cache_creation_input_tokens" in u
    responses = "input_tokens_details" in u or "output_tokens_details" in u
    if chat and (io or anthropic or responses):
        raise _Unusable("T103", "usage mixes OpenAI Chat and Responses/Anthropic fields")
    if anthropic and responses:
        raise _Unusable("T103", "usage mixes OpenAI Responses and Anthropic fields")

    if chat or (io and not anthropic):
        # OpenAI: the cached part is inside the prompt count, reasoning inside the output count.
        # A bare input_tokens/output_tokens pair (no cache fields) reads the same under the
        # Responses and the Anthropic rules, so it takes this branch too.
        in_key, out_key = _CHAT if chat else _IO
        in_details = "prompt_tokens_details" if chat else "input_tokens_details"
        out_details = "completion_tokens_details" if chat else "output_tokens_details"
        prompt = _count(u, in_key, required=True)
        completion = _count(u, out_key, required=True)
        cached = _detail(u, in_details, "cached_tokens") or 0
        reasoning = _detail(u, out_details, "reasoning_tokens")
        if cached > prompt:
            raise _Unusable("T106", "cached tokens exceed the prompt count",
                            f"cached={cached} > {in_key}={prompt}")
        if reasoning is not None and reasoning > completion:
            raise _Unusable("T106", "reasoning tokens exceed the output count",
                            f"reasoning={reasoning} > {out_key}={completion}")
        _check_total(u, prompt + completion, number, issues)
        shape = "openai_chat" if chat else ("openai_responses" if responses else "input_output")
        return (TokenUsage(prompt - cached, cached, 0, completion, reasoning), shape,
                max(prompt, completion))

    if anthropic:
        # Anthropic: three disjoint input buckets; thinking is billed inside output_tokens.
        inp = _count(u, "input_tokens", required=True)
        out = _count(u, "output_tokens", required=True)
        read = _count(u, "cache_read_input_tokens", required=False)
        write = _count(u, "cache_creation_input_tokens", required=False)
        return (TokenUsage(inp, read, write, out, None), "anthropic",
                max(inp, out, read, write))

    if "input" in u or "output" in u:
        inp = _count(u, "input", required=True)
        out = _count(u, "output", required=True)
        cached = _count(u, "cached", required=False)
        write = _count(u, "cache_write", required=False)
        reasoning = _count(u, "reasoning", required=False) if u.get("reasoning") is not None \
            else None
        if reasoning is not None and reasoning > out:
            raise _Unusable("T106", "reasoning tokens exceed the output count",
                            f"reasoning={reasoning} > output={out}")
        if u.get("total") is not None:
            _check_total(u, inp + cached + write + out, number, issues, key="total")
        return (TokenUsage(inp, cached, write, out, reasoning), "generic",
                max(inp, out, cached, write))

    raise _Unusable("T103", "no known usage fields (see docs/cost.md for the accepted forms)")


def _check_total(u: dict, expected: int, number: int, issues: list[LineIssue],
                 key: str = "total_tokens") -> None:
    total = u.get(key)
    if type(total) is int and total != expected:
        issues.append(LineIssue(number, "T110", f"{key} disagrees with its parts",
                                f"{key}={total}, parts sum to {expected}"))


def _timestamp(value: object, key: str) -> float:
    """ISO 8601 text or epoch seconds → epoch seconds (UTC). Naive ISO times are taken as UTC."""
    kind = type(value)
    if value is None:
        raise _Unusable("T108", "missing timestamp", key)
    if isinstance(value, (int, float)) and (kind is float or kind is int):  # not bool
        if not math.isfinite(value) or value < 0:
            raise _Unusable("T108", "unusable epoch timestamp", f"{key}={value!r}")
        if value > MAX_EPOCH_SECONDS:
            raise _Unusable("T108", "epoch timestamp looks like milliseconds, not seconds",
                            f"{key}={value!r}")
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):  # Python 3.10's fromisoformat does not read "Z"
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise _Unusable("T108", "unreadable ISO 8601 timestamp", f"{key}={value!r}") from None
        if moment.tzinfo is None:
            # .timestamp() would use the machine's local zone; a report must not depend on it.
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    raise _Unusable("T108", "timestamp is neither ISO 8601 text nor epoch seconds",
                    f"{key}={value!r}")
