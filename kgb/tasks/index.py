"""The suite's table of contents: task id → (category, folder), without parsing every task.

`kgb verify` of one kernel needs one task in full and only the ids and categories of the rest
(their `missing` rows): reading the whole suite's TOML and validating every task made a
1-kernel run pay for 300 tasks (design.md, "Scale and throughput"). The index reads each
task.toml's top-level `id` and `category` lines; a file whose header it cannot read that way
is parsed in full, so the index never disagrees with the loader, which also checks that a
loaded task's id is the one the index gave it."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from kgb.errors import TaskError
from kgb.tasks.model import Task

# A top-level key before the first [table]: `key = "value"` on a line of its own.
_HEADER_KEY = re.compile(r'^(id|category)\s*=\s*"([^"\\\n]*)"\s*(?:#.*)?$', re.M)


@dataclass(frozen=True)
class IndexEntry:
    id: str
    category: str
    folder: Path


@dataclass(frozen=True)
class SuiteIndex:
    root: Path
    entries: tuple[IndexEntry, ...]  # sorted by id
    _by_id: dict[str, IndexEntry] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {e.id: e for e in self.entries})

    def ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.entries)

    def entry(self, task_id: str) -> IndexEntry:
        return self._by_id[task_id]

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._by_id

    def load(self, task_id: str) -> Task:
        """The task in full, validated as `load_suite` would."""
        from kgb.tasks.loader import load_task

        entry = self.entry(task_id)
        task = load_task(entry.folder)
        if task.id != entry.id:  # cannot happen unless the file changed under us
            raise TaskError(f"{entry.folder / 'task.toml'}: its id changed to {task.id!r} "
                            f"while kgb ran; run again")
        return task


def _header(text: str) -> dict[str, str]:
    head = text.split("\n[", 1)[0]  # top-level keys only: stop at the first table
    return {key: value for key, value in _HEADER_KEY.findall(head)}


def index_suite(root: Path) -> SuiteIndex:
    """Every task.toml under `root` by id; duplicate ids and an empty suite are errors, as in
    `load_suite`."""
    if not root.is_dir():
        raise TaskError(f"{root}: not a directory; pass --tasks pointing at a task suite")
    found: dict[str, IndexEntry] = {}
    for toml_path in sorted(root.rglob("task.toml")):
        text = toml_path.read_text(errors="replace")
        header = _header(text)
        if "id" not in header or "category" not in header:
            try:
                raw = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise TaskError(f"{toml_path}: invalid TOML ({exc}); fix the syntax") from None
            header = {k: raw[k] for k in ("id", "category")
                      if isinstance(raw.get(k), str)}
            if len(header) != 2:
                raise TaskError(f"{toml_path}: needs string keys id and category; see "
                                f"docs/formats.md")
        task_id = header["id"]
        if task_id in found:
            raise TaskError(f"{toml_path}: task id {task_id!r} also defined in "
                            f"{found[task_id].folder}; task ids must be unique")
        found[task_id] = IndexEntry(task_id, header["category"], toml_path.parent.resolve())
    if not found:
        raise TaskError(f"{root}: no task.toml found; pass --tasks pointing at a task suite")
    return SuiteIndex(root, tuple(found[k] for k in sorted(found)))
