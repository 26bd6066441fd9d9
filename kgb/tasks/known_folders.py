"""Task folders this user chose, so a manifest's `[submission] tasks` can be honoured safely.

A task folder is code the trusted judge runs outside any sandbox (its reference.py and
inputs.py). A manifest is written by the generator, so a folder it names — perhaps one inside
the submission itself — must never be loaded on its say-so: kgb loads it only if this user
named that very folder to kgb before (`kgb init --tasks DIR`, `kgb tasks import-kernelbench
--out DIR`). The list lives in the user's config folder (XDG_CONFIG_HOME, else ~/.config), in
a file only kgb writes, mode 0600."""

from __future__ import annotations

import json
import os
from pathlib import Path

from kgb.jsonfiles import write_json_atomic

FILE_NAME = "task-folders.json"
MAX_FOLDERS = 1000


def _store() -> Path:
    root = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return root / "kgb" / FILE_NAME


def known() -> list[str]:
    """The folders registered so far (resolved paths); an unreadable store knows none."""
    try:
        data = json.loads(_store().read_text())
    except (OSError, ValueError):
        return []
    folders = data.get("folders") if isinstance(data, dict) else None
    return [f for f in folders if isinstance(f, str)] if isinstance(folders, list) else []


def register(folder: Path) -> None:
    """Remember `folder` (the user named it to kgb) as one whose tasks may be loaded."""
    path = str(folder.resolve())
    folders = [f for f in known() if f != path] + [path]
    store = _store()
    store.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_json_atomic(store, {"folders": folders[-MAX_FOLDERS:]}, indent=1)
    os.chmod(store, 0o600)


def is_known(folder: Path) -> bool:
    return str(folder.resolve()) in known()
