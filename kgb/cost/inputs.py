"""Read what `kgb cost` joins with the token log: a report.json (verdicts, speedups, manifest)
or a manifest.toml (kernel task ids, declared totals), through the one report reader
(kgb.report.json_report) and the one manifest parser (kgb.manifest)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgb.errors import BadInput
from kgb.jsonfiles import read_text


@dataclass(frozen=True)
class Context:
    """What the log is joined with; None means "not given", which figures report as such."""

    manifest_tasks: list[str] | None = None
    jobs: list[dict] | None = None
    declared: dict | None = None


def read_report(path: Path) -> Context:
    from kgb.report.json_report import read_report as read

    data = read(Path(path))
    jobs = data["jobs"]
    if not all(isinstance(j, dict) and isinstance(j.get("task"), str) for j in jobs):
        raise BadInput(f"report {path}: `jobs` must be a list of objects with a `task` id")
    manifest = data.get("manifest")
    tasks: list[str] | None = None
    declared = None
    if isinstance(manifest, dict):
        tasks = manifest.get("tasks") if isinstance(manifest.get("tasks"), list) else None
        declared = manifest.get("tokens") if isinstance(manifest.get("tokens"), dict) else None
    if tasks is None:
        # No manifest copy in the report: every job except "missing" stands for a kernel.
        tasks = [j["task"] for j in jobs if j.get("verdict") != "missing"]
    return Context(manifest_tasks=tasks, jobs=jobs, declared=declared)


def read_manifest(path: Path) -> Context:
    from kgb.manifest import parse_manifest

    text = read_text(Path(path), 1 << 20, "manifest", "pass the submission's manifest.toml")
    manifest = parse_manifest(text, f"manifest {path}")
    return Context(manifest_tasks=manifest.tasks, declared=manifest.declared_tokens)
