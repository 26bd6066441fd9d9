"""Audit a token log: per-line issues from the parser, then checks across lines and against
the manifest, the declared totals and the price table. Every check returns Findings with line
numbers; none changes a figure (figures.py decides what is counted, and docs/cost.md says so)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from kgb.cost.figures import Group
from kgb.cost.findings import LINE_CAP, Finding, finding
from kgb.cost.pricing import ModelPrice
from kgb.cost.usage import CallRecord, LineIssue


def line_issues(issues: Iterable[LineIssue]) -> list[Finding]:
    """One finding per (code, reason): a systematic problem reads as one line, with a count."""
    groups: dict[tuple[str, str], list[LineIssue]] = {}
    for issue in issues:
        groups.setdefault((issue.code, issue.reason), []).append(issue)
    out = []
    for (code, reason), items in groups.items():
        first = items[0]
        example = f"; line {first.line}: {first.detail}" if first.detail else ""
        out.append(finding(code, f"{reason} on {len(items)} line(s){example}",
                           (i.line for i in items[:LINE_CAP]), count=len(items)))
    return out


def unknown_tasks(records: Sequence[CallRecord], manifest: set[str]) -> list[Finding]:
    lines: dict[str, list[int]] = {}
    for r in records:
        if r.task not in manifest:
            lines.setdefault(r.task, []).append(r.line)
    return [finding("T201", f"{len(ls)} call(s) for task {task!r}, which has no kernel in the "
                    "manifest (counted in the submission totals)", ls[:LINE_CAP],
                    count=len(ls), task=task)
            for task, ls in sorted(lines.items())]


def kernels_without_tokens(manifest: Iterable[str], logged: set[str]) -> list[Finding]:
    return [finding("T202", f"kernel for {task!r} has no logged call: its generation cost is "
                    "unknown", task=task)
            for task in sorted(set(manifest) - logged)]


def duplicate_request_ids(records: Sequence[CallRecord]) -> list[Finding]:
    first: dict[str, int] = {}
    dups: dict[str, list[int]] = {}  # only ids seen twice: keeps a million-id log cheap
    for r in records:
        rid = r.request_id
        if rid is None:
            continue
        line = first.setdefault(rid, r.line)
        if line != r.line:
            dups.setdefault(rid, [line]).append(r.line)
    if not dups:
        return []
    rid, ls = next(iter(dups.items()))
    extra = sum(len(ls) - 1 for ls in dups.values())
    lines = [n for ls in dups.values() for n in ls][:LINE_CAP]
    return [finding("T203", f"{len(dups)} request id(s) appear on more than one line "
                    f"({extra} extra line(s), counted as logged); e.g. {rid!r} on lines "
                    f"{', '.join(map(str, ls[:5]))}", lines, count=extra)]


def timing(records: Sequence[CallRecord]) -> list[Finding]:
    """ended before started; overlapping calls of one task+attempt; out-of-order lines."""
    out: list[Finding] = []
    backwards = [r.line for r in records
                 if r.started is not None and r.ended is not None and r.ended < r.started]
    if backwards:
        out.append(finding("T204", f"{len(backwards)} call(s) end before they start; left out "
                           "of wall time", backwards[:LINE_CAP], count=len(backwards)))

    # Calls of one attempt are one conversation: they should follow each other. A call that
    # starts before an earlier one of the same attempt has ended points at a merged or
    # mislabelled log (or parallel sub-agents, which is why this is only a warning).
    per_attempt: dict[tuple[str, object], list[CallRecord]] = {}
    for r in records:
        if r.attempt is not None and r.started is not None and r.ended is not None \
                and r.ended >= r.started:
            per_attempt.setdefault((r.task, r.attempt), []).append(r)
    for (task, attempt), calls in sorted(per_attempt.items(), key=lambda kv: kv[1][0].line):
        if len(calls) < 2:
            continue
        calls.sort(key=lambda r: (r.started, r.line))
        lines: list[int] = []
        spans = [(r.started or 0.0, r.ended or 0.0, r.line) for r in calls]  # both set above
        latest_end, latest_line = spans[0][1], spans[0][2]
        for started, ended, line in spans[1:]:
            if started < latest_end:  # touching (start == previous end) is not overlap
                lines += [latest_line, line]
            if ended > latest_end:
                latest_end, latest_line = ended, line
        if lines:
            out.append(finding("T205", f"calls of task {task!r} attempt {attempt!r} overlap in "
                               "time", lines, task=task))

    # A log appended at call start is ordered by started, one appended at call end by ended;
    # only a line earlier than its predecessors by both is out of order.
    late: list[int] = []
    max_start = max_end = -math.inf
    for r in records:
        s, e = r.started, r.ended
        if s is None or e is None:
            continue
        if s < max_start and e < max_end:
            late.append(r.line)
        max_start, max_end = max(max_start, s), max(max_end, e)
    if late:
        out.append(finding("T206", f"{len(late)} line(s) are earlier than a previous line by "
                           "both started and ended (the log is not in time order)",
                           late[:LINE_CAP], count=len(late)))
    return out


DECLARED_KEYS = ("input", "cached", "cache_write", "output", "reasoning", "total")


def declared_totals(declared: Mapping, total: Group, excluded_lines: int
                    ) -> tuple[list[Finding], dict]:
    """Compare the manifest's [submission.tokens] with the log. Keys use the canonical meaning
    (docs/cost.md); `input` may also be declared inclusive of cached and cache-write tokens,
    the way OpenAI counts prompts, so either reading agrees."""
    logged = {"input": total.input, "cached": total.cached, "cache_write": total.cache_write,
              "output": total.output, "reasoning": total.reasoning, "total": total.total}
    inclusive_input = total.input + total.cached + total.cache_write
    rows: dict[str, dict] = {}
    out: list[Finding] = []
    note = (f" ({excluded_lines} malformed line(s) are excluded from the log's figures)"
            if excluded_lines else "")
    for key, value in declared.items():
        if key not in DECLARED_KEYS:
            out.append(finding("T207", f"[submission.tokens] has unknown key {key!r}; expected "
                               f"one of {', '.join(DECLARED_KEYS)}"))
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            out.append(finding("T207", f"[submission.tokens] {key} = {value!r} is not an integer"))
            rows[key] = {"declared": value, "logged": logged[key], "agrees": False}
            continue
        agrees = value == logged[key] or (key == "input" and value == inclusive_input)
        row = {"declared": value, "logged": logged[key], "agrees": agrees}
        if key == "input":
            row["logged_including_cache"] = inclusive_input
        rows[key] = row
        if not agrees:
            also = f" or {inclusive_input} including cache" if key == "input" else ""
            out.append(finding("T207", f"declared {key} tokens {value} but the log sums to "
                               f"{logged[key]}{also}{note}"))
    return out, rows


def unpriced(records: Sequence[CallRecord], prices: Mapping[str, ModelPrice | None],
             source: str | None) -> list[Finding]:
    """One finding per model whose calls cannot be priced (no entry, or no price for a token
    kind it used)."""
    def why(r: CallRecord) -> str | None:
        price = prices.get(r.model)
        if price is None:
            return f"model {r.model!r} has no price" + (f" in {source}" if source else
                                                       " (no --pricing file given)")
        if r.usage.cached and price.cached_input is None:
            return f"model {r.model!r} ({price.name}) has no cached_input price but reads the cache"
        if r.usage.cache_write and price.cache_write is None:
            return f"model {r.model!r} ({price.name}) has no cache_write price but writes the cache"
        return None

    reasons: dict[str, tuple[str, list[int]]] = {}
    for r in records:
        reason = why(r)
        if reason is not None:
            key = r.model + reason
            if key not in reasons:
                reasons[key] = (reason, [])
            reasons[key][1].append(r.line)
    return [finding("T208", f"{reason}: {len(lines)} call(s) with unpriced tokens (cost null "
                    "or partial, never 0)", lines[:LINE_CAP], count=len(lines))
            for reason, lines in reasons.values()]
