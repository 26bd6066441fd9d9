"""`--limit KEY=VALUE` on the command line → a Limits value (sizes accept k/m/g suffixes)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from kgb.errors import BadInput
from kgb.sandbox.base import Limits

ALIASES = {"time": "wall_time_s", "compile": "compile_time_s", "compile_case": "compile_case_s",
           "memory": "memory_bytes", "mem": "memory_bytes", "pids": "max_processes",
           "processes": "max_processes", "output": "output_bytes", "tmp": "tmp_bytes",
           "cpus": "cpus", "log": "log_bytes"}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([kmgt]i?b?)?$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str) -> int:
    match = _SIZE.match(text.strip())
    if not match:
        raise ValueError(text)
    return int(float(match.group(1)) * _UNITS[(match.group(2) or "")[:1].lower()])


def field_name(item: str) -> str:
    """The Limits field a `KEY=VALUE` item names (its alias resolved)."""
    key = item.partition("=")[0].strip()
    return ALIASES.get(key, key)


def apply_overrides(base: Limits, items: tuple[str, ...]) -> Limits:
    fields = {f.name: f for f in dataclasses.fields(Limits)}
    changes: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        name = field_name(item)
        if not sep or name not in fields:
            raise BadInput(f"--limit {item!r}: use KEY=VALUE with KEY one of "
                           f"{', '.join(sorted(ALIASES))}")
        try:
            if name.endswith("_bytes"):
                changes[name] = parse_size(value)
            elif name.endswith("_s") or name == "cpus":
                changes[name] = float(value)
            else:
                changes[name] = int(value)
        except ValueError:
            raise BadInput(f"--limit {item!r}: {value!r} is not a valid value for {key}") from None
        if changes[name] <= 0:
            raise BadInput(f"--limit {item!r}: must be positive")
    return dataclasses.replace(base, **changes)
