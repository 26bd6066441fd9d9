"""Untrusted text on a terminal: never markup, never control characters.

Kernel messages, submission names, task ids, token-log model names and whole report files come
from people and programs kgb does not trust. Through rich's markup a `[/bogus]` in an exception
crashes the renderer and a `[green]passed[/]` repaints a verdict; through the terminal an ANSI
escape moves the cursor and overwrites the table. So every console kgb prints on is created with
markup and emoji off (`console()`), every string that is not kgb's own literal goes through
`safe()`, and kgb's own colours come only from `Text` styles."""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def safe(value: Any, limit: int = 2000) -> str:
    """`value` as one printable line: control characters (ESC, CR, BEL, bidi overrides ...)
    shown as escapes, long text cut."""
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 9] + " ...[cut]"
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """The reader left (`kgb report | head -1`): rich exits 1, which the README documents
        as "lint found a problem". kgb's main turns this into a quiet exit 0."""
        raise BrokenPipeError


def console(stderr: bool = False, min_width: int = 0) -> Console:
    """A console that renders strings literally (no markup, no emoji codes, no highlighting);
    when not a terminal (logs, pipes), at least `min_width` wide so tables never cut ids."""
    made = _Console(stderr=stderr, markup=False, emoji=False, highlight=False)
    if not made.is_terminal and min_width:
        made = _Console(stderr=stderr, markup=False, emoji=False, highlight=False,
                        width=max(made.width, min_width))
    return made
