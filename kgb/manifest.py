"""The submission manifest (`manifest.toml`): one model, one parser, used by `kgb verify`
(kgb.submission) and `kgb cost` alike. The format is documented in docs/submission.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kgb.errors import SubmissionError, quoted

MANIFEST = "manifest.toml"
KERNEL_FILE = re.compile(r"^kernels/[A-Za-z0-9_][A-Za-z0-9_.\-]*\.py$")
DOCS = "see docs/submission.md"


@dataclass(frozen=True)
class KernelEntry:
    task: str
    file: str  # "kernels/<name>.py"
    entry: str | None = None  # overrides the task's entry function name


@dataclass(frozen=True)
class Manifest:
    name: str
    generator: str
    model: str
    created: str
    kernels: tuple[KernelEntry, ...]
    declared_tokens: dict[str, int] | None  # [submission.tokens]
    tasks_dir: str | None = None  # [submission] tasks: the task folder `kgb init --tasks` used

    @property
    def tasks(self) -> list[str]:
        return [k.task for k in self.kernels]


def parse_manifest(text: str, where: str) -> Manifest:
    """A manifest from its TOML text; SubmissionError naming `where` when it is not one."""
    from kgb.jsonfiles import parse_toml

    try:
        raw = parse_toml(text, where, f"fix its syntax ({DOCS})")
    except SubmissionError:
        raise
    except Exception as exc:  # BadInput from parse_toml: a submission error here
        raise SubmissionError(str(getattr(exc, "message", exc))) from None
    sub = raw.get("submission")
    if not isinstance(sub, dict) or not isinstance(sub.get("name"), str) or not sub["name"]:
        raise SubmissionError(f"{where} needs a [submission] table with a non-empty name; {DOCS}")
    tokens = sub.get("tokens")
    if tokens is not None and not (isinstance(tokens, dict) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in tokens.values())):
        raise SubmissionError(f"{where}: [submission.tokens] must map names to integers; {DOCS}")
    tasks_dir = sub.get("tasks")
    if tasks_dir is not None and not (isinstance(tasks_dir, str) and tasks_dir.strip()):
        raise SubmissionError(f"{where}: [submission] tasks must be a folder path (text); {DOCS}")
    kernels = raw.get("kernels")
    if not isinstance(kernels, list) or not kernels:
        raise SubmissionError(f"{where} needs at least one [[kernels]] entry with task and file; "
                              f"{DOCS}")
    entries: list[KernelEntry] = []
    seen: set[str] = set()
    for i, k in enumerate(kernels, start=1):
        entries.append(_kernel_entry(k, i, where))
        if entries[-1].task in seen:
            raise SubmissionError(f"{where}: task {quoted(entries[-1].task)} listed twice; one "
                                  f"kernel per task")
        seen.add(entries[-1].task)
    return Manifest(name=sub["name"], generator=_text(sub, "generator"),
                    model=_text(sub, "model"), created=_text(sub, "created"),
                    kernels=tuple(entries), declared_tokens=dict(tokens) if tokens else None,
                    tasks_dir=tasks_dir)


def _kernel_entry(k: Any, i: int, where: str) -> KernelEntry:
    if not isinstance(k, dict) or not isinstance(k.get("task"), str) or \
            not isinstance(k.get("file"), str):
        raise SubmissionError(f"{where}: [[kernels]] entry {i} needs string keys task and file; "
                              f"{DOCS}")
    if not KERNEL_FILE.match(k["file"]):
        raise SubmissionError(f"{where}: kernel file {quoted(k['file'])} must be "
                              f"kernels/<name>.py; "
                              f"{DOCS}")
    entry = k.get("entry")
    if entry is not None and not (isinstance(entry, str) and entry.isidentifier()):
        raise SubmissionError(f"{where}: entry of {quoted(k['task'])} must be a Python identifier")
    return KernelEntry(k["task"], k["file"], entry)


def _text(table: dict, key: str) -> str:
    value = table.get(key, "")
    return str(value)
