"""Read what `kgb cost` joins with the token log: a report.json (verdicts, speedups, manifest)
or a manifest.toml (kernel task ids, declared totals). Only the few keys cost needs are read;
the full schemas belong to kgb.report and kgb.submission."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from kgb.errors import BadInput

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPORT_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Context:
    """What the log is joined with; None means "not given", which figures report as such."""

    manifest_tasks: list[str] | None = None
    jobs: list[dict] | None = None
    declared: dict | None = None


def read_report(path: Path) -> Context:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"report {path} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BadInput(f"cannot read report {path}: {exc}") from None
    if not isinstance(data, dict):
        raise BadInput(f"report {path} is not a JSON object")
    version = data.get("schema_version")
    if version is not None and version != REPORT_SCHEMA_VERSION:
        raise BadInput(f"report {path} has schema_version {version!r}; this kgb reads "
                       f"{REPORT_SCHEMA_VERSION}")
    jobs = data.get("jobs")
    if not isinstance(jobs, list) or not all(isinstance(j, dict) and isinstance(j.get("task"), str)
                                             for j in jobs):
        raise BadInput(f"report {path}: `jobs` must be a list of objects with a `task` id")
    manifest = data.get("manifest")
    tasks: list[str] | None = None
    declared = None
    if isinstance(manifest, dict):
        tasks = _task_ids(manifest.get("tasks"), f"report {path}: manifest.tasks")
        declared = _declared(manifest.get("tokens"), f"report {path}: manifest.tokens")
    if tasks is None:
        # No manifest copy in the report: every job except "missing" stands for a kernel.
        tasks = [j["task"] for j in jobs if j.get("verdict") != "missing"]
    return Context(manifest_tasks=tasks, jobs=jobs, declared=declared)


def read_manifest(path: Path) -> Context:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"manifest {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read manifest {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"manifest {path} is not valid TOML: {exc}") from None
    kernels = data.get("kernels", [])
    tasks = _task_ids(kernels, f"manifest {path}: [[kernels]]") or []
    submission = data.get("submission", {})
    declared = _declared(submission.get("tokens") if isinstance(submission, dict) else None,
                         f"manifest {path}: [submission.tokens]")
    return Context(manifest_tasks=tasks, declared=declared)


def _task_ids(value: object, where: str) -> list[str] | None:
    """A list of task ids, or of tables with a `task` key (the [[kernels]] form)."""
    if value is None:
        return None
    if not isinstance(value, list):
        raise BadInput(f"{where} must be a list")
    out = []
    for item in value:
        task = item.get("task") if isinstance(item, dict) else item
        if not isinstance(task, str) or not task:
            raise BadInput(f"{where}: every entry needs a task id, got {item!r}")
        out.append(task)
    return out


def _declared(value: object, where: str) -> dict | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadInput(f"{where} must be a table of token totals")
    return dict(value)
