"""`kgb verify A B C ...` (or a folder of submissions): many submissions in one run.

Each submission is verified as `kgb verify` verifies one — its own folder `OUT/<name>/` with
its report.json, report.md, report.html and job folders — under one secret seed for the whole
batch, with one reference cache (`OUT/refcache`): a (task, case, seed) reference is computed
once and serves every submission (design.md, "Compute once on the trusted side") — under docker
and bwrap, which hide the run folder from candidates; under `process` each member keeps its own
cache, as a single run does. The run's
summary (`OUT/summary.json`) lists every submission's figures; a submission refused as bad
input is a row with its one-line reason, never the end of the batch. The cache is written by
kgb's trusted judge alone, in a folder no sandbox mounts."""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kgb.errors import BadInput, InfraError, Interrupted
from kgb.jsonfiles import write_json_atomic

SUMMARY_FILE = "summary.json"
BATCH_FILE = "batch.json"  # the batch's seed and members, for --resume
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz")


@dataclass(frozen=True)
class Member:
    name: str  # its folder under OUT
    path: Path


def is_submission(path: Path) -> bool:
    return (path.is_dir() and (path / "manifest.toml").is_file()) or (
        path.is_file() and path.name.endswith(ARCHIVE_SUFFIXES))


def members(paths: tuple[Path, ...]) -> list[Member]:
    """The batch's submissions: each path a submission, or a folder of them (its archives and
    folders holding a manifest.toml, in name order). Names are unique folder names."""
    found: list[Path] = []
    for path in paths:
        if is_submission(path):
            found.append(path)
        elif path.is_dir():
            inside = sorted(p for p in path.iterdir() if is_submission(p))
            if not inside:
                raise BadInput(f"{path}: neither a submission (no manifest.toml) nor a folder of "
                               "submissions; pass submission archives or folders")
            found += inside
        else:
            raise BadInput(f"{path}: no such submission (an archive .tar/.tar.gz or a folder "
                           "with manifest.toml)")
    out: list[Member] = []
    used: set[str] = set()
    for path in found:
        stem = re.sub(r"\.(tar\.gz|tgz|tar)$", "", path.name)
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._") or "submission"
        name, n = base, 1
        while name in used or name in ("refcache", "jobs", "submission"):
            n += 1
            name = f"{base}-{n}"
        used.add(name)
        out.append(Member(name, path))
    return out


def run_batch(paths: tuple[Path, ...], base, quiet: bool = False) -> dict[str, Any]:
    """Verify every member with `base`'s options (a VerifyOptions); the summary, also written
    to OUT/summary.json. Bad input of one member is its row; kgb's own failure or an interrupt
    ends the batch after every member's report (partial where its jobs did not all finish) and
    the summary are written. The slots (local, or a Ray cluster's actors) take the jobs of
    every member from one board, longest first."""
    batch = members(paths)
    out_dir = base.out_dir.resolve()
    seed = _batch_seed(out_dir, base, batch)
    shared = out_dir / "refcache" if _isolating(base.sandbox) else None
    rows: list[dict[str, Any]] = []
    try:
        _members_on_one_board(batch, base, out_dir, seed, shared, rows, quiet)
    finally:
        summary = {"seed": seed, "submissions": rows, "complete": len(rows) == len(batch)
                   and all(row.get("complete", True) for row in rows)}
        write_json_atomic(out_dir / SUMMARY_FILE, summary, indent=1)
    return summary


def _member_options(base, member: Member, out_dir: Path, seed: int, shared: Path | None):
    folder = out_dir / member.name
    return replace(base, submission=member.path, out_dir=folder, seed=seed, refcache=shared,
                   resume=base.resume and (folder / "run.json").is_file())


def _members_on_one_board(batch: list[Member], base, out_dir: Path, seed: int,
                          shared: Path | None, rows: list[dict[str, Any]], quiet: bool) -> None:
    """Every member planned first, then all their jobs on one board (kgb.runner.schedule.
    run_works): a batch of one-kernel submissions keeps every GPU busy. Members share the
    sandbox backend, the cancel event and — where the backend hides the run folder — the
    judges and their reference cache; on Ray, one set of actors holding every member's
    files."""
    from kgb.report.terminal import JobProgress
    from kgb.runner.judge_pool import JudgePool
    from kgb.runner.schedule import ScheduleOutcome
    from kgb.runner.shards import run_sharded
    from kgb.runner.verify import _stop_signals_interrupt, close_run, open_run
    from kgb.sandbox.base import create_sandbox
    from kgb.tasks.index import index_suite

    cancel = threading.Event()
    with contextlib.ExitStack() as stack:
        placement = None
        if base.ray is not None:
            from kgb.placement.ray_host import RayPlacement
            from kgb.runner.verify import cpus_given

            placement = stack.enter_context(RayPlacement(base.ray, base.device, base.jobs,
                                                         base.timing, cpus_given(base.limits)))
        sandbox = stack.enter_context(create_sandbox(base.sandbox))
        judges = stack.enter_context(JudgePool(shared, out_dir / "judges.log")) \
            if shared is not None else None
        if judges is not None and placement is None:
            from kgb.runner.verify import prestart_judge

            prestart_judge(judges, base)  # its start-up beside the members' loading
        opened: list[tuple[Member, Any]] = []
        refused: dict[str, dict[str, Any]] = {}
        # the suite read once for every member (44 ms a member, 2.8 of a 64-member batch's
        # 3.2 s of opening, each of them before the first job starts)
        index = index_suite(base.tasks_dir)
        for member in batch:
            options = _member_options(base, member, out_dir, seed, shared)
            # one timing lock per GPU for every member's jobs: a member's timed window
            # freezes the others' jobs on its GPU as a local run's own (kgb.runner.gpu_share)
            # and one memo: a baseline or loop cost one member's job measured serves all
            shares = opened[0][1].ctx.shares if opened else None
            memo = opened[0][1].ctx.memo if opened else None
            try:
                opened.append((member, open_run(options, stack, placement, judges, cancel,
                                                sandbox, shares, out_dir, memo, index)))
            except BadInput as exc:
                refused[member.name] = {"name": member.name, "path": str(member.path),
                                        "error": str(exc)}
        stack.enter_context(_stop_signals_interrupt())
        works = [(job, run.ctx) for _, run in opened for job in run.jobs]
        if placement is not None and opened:  # the actors start, every member's files shipped
            stack.callback(placement.release)
            first = opened[0][1]
            placement.open(first.ctx, first.jobs,
                           more=[(run.ctx, run.jobs) for _, run in opened[1:]])
        slots = opened[0][1].slots if opened else ()
        progress = stack.enter_context(JobProgress(len(works), quiet=True))
        outcome = run_sharded(works, slots, cancel, progress,  # kgb.runner.shards
                              lambda work: _owner(opened, work).reuse(work[0]), placement,
                              base.shard_cases) \
            if works else ScheduleOutcome(())
        headers = [run.header() for _, run in opened]
    stop: Exception | None = None
    reports: dict[str, dict[str, Any]] = {}
    for (member, run), header in zip(opened, headers):
        mine = tuple(r for r in outcome.results if any(r[0] is job for job in run.jobs))
        whole = len(mine) == len(run.jobs)
        member_outcome = ScheduleOutcome(mine, None if whole else outcome.failure,
                                         None if whole else outcome.interrupted)
        try:
            reports[member.name] = close_run(run, header, member_outcome)
        except (Interrupted, InfraError) as exc:  # its partial report is written
            stop = stop or exc
            reports[member.name] = json.loads((run.out_dir / "report.json").read_text())
    for member in batch:  # rows in the batch's order
        row = refused.get(member.name) or _row(member, reports[member.name])
        rows.append(row)
        if not quiet:
            _print_row(row)
    if stop is not None:
        raise stop


def _owner(opened: list[tuple[Member, Any]], work) -> Any:
    """The open run a scheduled job belongs to (by its context)."""
    return next(run for _, run in opened if run.ctx is work[1])


def _isolating(sandbox: str) -> bool:
    """Whether the batch's backend hides the run folder from candidates (docker, bwrap). Under
    `process` (isolation none) a candidate could read — or plant — another member's cached
    references, so each member keeps its own cache there, computed after its candidates ran."""
    from kgb.sandbox.base import AUTO_ORDER, available_backends

    if sandbox == "auto":
        usable = available_backends()
        sandbox = next((b for b in AUTO_ORDER if usable.get(b) is None), "process")
    return sandbox in ("docker", "bwrap")


def _batch_seed(out_dir: Path, base, batch: list[Member]) -> int:
    record = out_dir / BATCH_FILE
    names = [m.name for m in batch]
    if base.resume:
        try:
            kept = json.loads(record.read_text())
            seed, kept_names = int(kept["seed"]), list(kept["members"])
        except (OSError, ValueError, KeyError, TypeError):
            raise BadInput(f"--resume: {record} is missing or unreadable; run without "
                           f"--resume to start a new batch") from None
        if kept_names != names:
            raise BadInput(f"--resume: the batch in {out_dir} had other submissions; resume "
                           f"with the same ones or use a new --out")
        return seed
    if (record.exists() or (out_dir / SUMMARY_FILE).exists()) and not base.force:
        raise BadInput(f"--out {out_dir} already holds a batch; pass --force to replace it, "
                       f"--resume to continue it, or another --out")
    seed = base.seed if base.seed is not None else secrets.randbits(63)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(record, {"seed": seed, "members": names}, indent=1)
    return seed


def _row(member: Member, report: dict[str, Any]) -> dict[str, Any]:
    rates = report["summary"]["rates"]
    return {"name": member.name, "path": str(member.path),
            "report": f"{member.name}/report.json", "complete": report["complete"],
            "submitted": rates.get("tasks"), "compiled": rates.get("compiled"),
            "correct": rates.get("correct"), "correct_rate": rates.get("correct_rate"),
            "fast_1": (rates.get("fast_p") or {}).get("fast_1"),
            "geomean_speedup_eager": rates.get("geomean_speedup_eager")}


def _print_row(row: dict[str, Any]) -> None:
    import click

    if "error" in row:
        click.echo(f"batch {row['name']}: refused — {row['error']}")
        return
    fast = row["fast_1"]
    click.echo(f"batch {row['name']}: correct {row['correct']}/{row['submitted']}, compiled "
               f"{row['compiled']}/{row['submitted']}, fast_1 "
               f"{'—' if fast is None else f'{fast:.0%}'} ({row['report']})")
