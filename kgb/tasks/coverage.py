"""Precision coverage of a suite (issue 27): how many tasks exercise each precision
(kgb.tasks.model.PRECISIONS) — `kgb tasks list --summary` and the table in docs/tasks.md,
which tests/test_inplace.py keeps in step with the suite."""

from __future__ import annotations

from collections.abc import Iterable

from kgb.tasks.model import CATEGORIES, PRECISIONS, Task


def precision_counts(tasks: Iterable[Task]) -> dict[str, int]:
    """Tasks per precision tag, every tag present (0 where none)."""
    counts = dict.fromkeys(PRECISIONS, 0)
    for task in tasks:
        for tag in task.precisions:
            counts[tag] += 1
    return counts


def summary(tasks: Iterable[Task]) -> dict:
    """What `kgb tasks list --summary --json` adds: counts per precision and category, and
    the in-place tasks."""
    chosen = list(tasks)
    categories = {c: n for c in CATEGORIES
                  if (n := sum(t.category == c for t in chosen))}
    return {"tasks": len(chosen), "precisions": precision_counts(chosen),
            "categories": categories,
            "inplace": sorted(t.id for t in chosen if t.inplace)}


def precision_table(tasks: Iterable[Task]) -> str:
    """The Markdown table docs/tasks.md shows (precision | tasks)."""
    counts = precision_counts(tasks)
    rows = "\n".join(f"| {tag} | {n} |" for tag, n in counts.items())
    return "| precision | tasks |\n|---|---|\n" + rows


START, END = "<!-- precision-table:start -->", "<!-- precision-table:end -->"


def in_docs(text: str, table: str) -> str:
    """docs/tasks.md's text with the table between its markers replaced by `table`."""
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{table}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """`python -m kgb.tasks.coverage [--write]`: print the table, or write it into
    docs/tasks.md between its markers."""
    import sys
    from pathlib import Path

    from kgb.tasks.loader import load_suite

    root = Path(__file__).resolve().parents[2]
    table = precision_table(load_suite(root / "tasks").values())
    if "--write" in (sys.argv[1:] if argv is None else argv):
        docs = root / "docs/tasks.md"
        docs.write_text(in_docs(docs.read_text(), table))
    else:
        print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
