"""Audit findings of a token log: the catalogue of codes (data, so docs and tests read one
source) and the Finding value every check returns.

A finding names lines, never hides them: a malformed line is excluded from the figures *and*
reported here with its line number, so nothing in a log vanishes silently."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# Findings list at most this many line numbers; `count` always holds the true number, so a
# million-line log with one systematic problem gives one readable finding, not a million.
LINE_CAP = 100
# At most this many findings per code (e.g. one per overlapping task+attempt); the rest are
# merged into one "and N more" finding so a pathological log cannot flood the report.
PER_CODE_CAP = 50

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: str  # error: figures are wrong or incomplete; warning: suspicious; info: FYI
    summary: str  # one sentence: what it means and what happened to the line


CODES: dict[str, Code] = {c.code: c for c in (
    # Parsing: one line at a time.
    Code("T101", "invalid-json", "error",
         "The line is not a JSON object; it is excluded from every figure."),
    Code("T102", "bad-field", "error",
         "task, model or usage is missing or of the wrong type; the line is excluded."),
    Code("T103", "unknown-usage-shape", "error",
         "No known usage fields, or fields of two providers mixed; the line is excluded."),
    Code("T104", "negative-count", "error",
         "A token count is negative; the line is excluded."),
    Code("T105", "non-integer-count", "error",
         "A token count is not an integer (float, string, bool); the line is excluded."),
    Code("T106", "inconsistent-usage", "error",
         "Parts exceed their whole (cached > prompt, reasoning > output); the line is excluded."),
    Code("T107", "absurd-count", "warning",
         "More than 10M tokens in one call; counted as logged, almost surely a logging bug."),
    Code("T108", "bad-timestamp", "warning",
         "started/ended missing or unreadable; tokens counted, call left out of wall time."),
    Code("T109", "missing-attempt", "warning",
         "No usable attempt; tokens counted, call left out of attempt counts."),
    Code("T110", "total-mismatch", "warning",
         "The line's own total_tokens disagrees with its parts (e.g. reasoning outside output)."),
    # Audit: across lines, and against the manifest, verdicts and price table.
    Code("T201", "unknown-task", "warning",
         "Calls for a task that has no kernel in the manifest; counted in submission totals."),
    Code("T202", "kernel-without-tokens", "warning",
         "A kernel of the manifest has no logged call; its cost is unknown, not zero."),
    Code("T203", "duplicate-request-id", "error",
         "One request id on several lines: probably a call logged twice (counted as logged)."),
    Code("T204", "ended-before-started", "error",
         "A call ended before it started; tokens counted, call left out of wall time."),
    Code("T205", "overlapping-calls", "warning",
         "Calls of the same task and attempt overlap in time."),
    Code("T206", "out-of-order", "info",
         "A line is earlier than a previous one by both started and ended."),
    Code("T207", "declared-total-mismatch", "error",
         "A total declared in the manifest's [submission.tokens] disagrees with the log."),
    Code("T208", "unpriced-model", "warning",
         "A model (or a token kind it used) has no price; its cost is null, never 0."),
)}


@dataclass(frozen=True)
class Finding:
    code: str
    severity: str
    message: str
    lines: tuple[int, ...] = ()  # 1-based line numbers of tokens.jsonl, at most LINE_CAP
    count: int = 0  # how many lines (or items) are concerned, uncapped
    task: str | None = None

    @property
    def name(self) -> str:
        return CODES[self.code].name

    def to_dict(self) -> dict:
        return {"code": self.code, "name": self.name, "severity": self.severity,
                "message": self.message, "lines": list(self.lines), "count": self.count,
                "task": self.task}


def finding(code: str, message: str, lines: Iterable[int] = (), count: int | None = None,
            task: str | None = None) -> Finding:
    """A finding with the catalogue's severity; lines are sorted and capped. The count
    defaults to the number of lines, or 1 for a finding about one thing with no line (a kernel,
    a declared total)."""
    all_lines = sorted(set(lines))
    if count is None:
        count = len(all_lines) or 1
    return Finding(code=code, severity=CODES[code].severity, message=message,
                   lines=tuple(all_lines[:LINE_CAP]), count=count, task=task)


def cap_per_code(findings: list[Finding]) -> list[Finding]:
    """Keep the first PER_CODE_CAP findings of each code; merge the rest into one."""
    kept: list[Finding] = []
    overflow: dict[str, list[Finding]] = {}
    seen: dict[str, int] = {}
    for f in findings:
        seen[f.code] = seen.get(f.code, 0) + 1
        if seen[f.code] <= PER_CODE_CAP:
            kept.append(f)
        else:
            overflow.setdefault(f.code, []).append(f)
    for code, rest in overflow.items():
        lines = [n for f in rest for n in f.lines]
        kept.append(finding(code, f"and {len(rest)} more {CODES[code].name} findings like the "
                            "ones above", lines, count=sum(f.count for f in rest)))
    return kept


_ORDER = {s: i for i, s in enumerate(SEVERITIES)}


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then by code, then by first line: a stable, readable order."""
    return sorted(findings, key=lambda f: (_ORDER[f.severity], f.code,
                                           f.lines[0] if f.lines else 0, f.task or ""))
