"""Less ceremony for `kgb verify` (docs/submission.md, "One kernel file" and "The task folder"):

- `kgb verify FILE.py --task ID`: one kernel file, no manifest. A submission folder with a
  synthesised manifest is written to a temporary folder and goes through the same safe load as
  any submission (one path, every check).
- `kgb init DIR --tasks TASKS` records the task folder in the manifest (`[submission] tasks`),
  and `kgb verify DIR` without `--tasks` uses it — only a folder this user gave kgb
  (kgb.tasks.known_folders: a manifest is the generator's, and a task folder's reference.py
  runs in the trusted judge) — and a submission never chooses the definition of a bundled
  task: a manifest that points a bundled task id at another folder is
  refused (the reference, the tolerances and the shapes are the verifier's, not the
  generator's), so only tasks the bundled suite does not have (imported ones) are found there."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

from kgb.errors import BadInput, quoted
from kgb.manifest import MANIFEST

SINGLE_MAX_BYTES = 4 << 20  # kgb.submission.MAX_FILE_BYTES: a kernel file's cap


def single_kernel_submission(file: Path, task: str, folder: Path) -> Path:
    """`folder` made a one-kernel submission of `file` for `task`; returns `folder`."""
    if not file.is_file():
        raise BadInput(f"{file}: no such kernel file")
    if file.stat().st_size > SINGLE_MAX_BYTES:
        raise BadInput(f"{file} is {file.stat().st_size} bytes, over the {SINGLE_MAX_BYTES}-byte "
                       f"cap for a kernel file")
    stem = re.sub(r"[^A-Za-z0-9_.\-]", "_", file.stem).lstrip(".-") or "kernel"
    name = f"kernels/{stem}.py"
    (folder / "kernels").mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(file.read_bytes())
    # JSON strings are TOML basic strings: any file name is quoted safely.
    (folder / MANIFEST).write_text(
        "[submission]\n"
        f"name = {json.dumps(file.name)}\n"
        'generator = "kgb verify FILE --task"\n'
        f"created = {json.dumps(date.today().isoformat())}\n\n"
        f"[[kernels]]\ntask = {json.dumps(task)}\nfile = {json.dumps(name)}\n")
    return folder


def remembered_tasks(source: Path, bundled: Path) -> Path | None:
    """The task folder `kgb init --tasks` recorded in the submission's manifest, checked; None
    when it records none (a .py file has no manifest)."""
    from kgb.submission import peek_manifest

    if source.suffix == ".py" or not source.exists():
        return None  # load_submission says what is wrong with it
    manifest = peek_manifest(source)
    if manifest is None or manifest.tasks_dir is None:
        return None
    folder = Path(manifest.tasks_dir).expanduser()
    if not folder.is_dir():
        raise BadInput(f"{source}: {MANIFEST} names the task folder {quoted(str(folder))} "
                       f"([submission] tasks, from `kgb init --tasks`), which does not exist "
                       f"here; pass --tasks DIR")
    if folder.resolve() == bundled.resolve():
        return None
    from kgb.tasks.known_folders import is_known

    if not is_known(folder):  # the generator wrote the manifest: its folder is only a hint
        raise BadInput(f"{source}: {MANIFEST} names the task folder {quoted(str(folder))}, "
                       f"which you have not given kgb yourself (kgb init --tasks, kgb tasks "
                       f"import-kernelbench --out): its reference.py would run outside any "
                       f"sandbox; pass --tasks {quoted(str(folder))} if you trust it")
    from kgb.tasks.loader import load_suite

    shadowed = sorted(set(manifest.tasks) & set(load_suite(bundled)))
    if shadowed:
        raise BadInput(f"{source}: {MANIFEST} names the task folder {quoted(str(folder))}, but "
                       f"{quoted(shadowed[0])} is a bundled task: a submission does not choose "
                       f"which definition it is judged by; pass --tasks {quoted(str(folder))} "
                       f"yourself to use that folder")
    return folder
