"""Terminal rendering with rich: the progress bar, the verdict table, the task and rule lists."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

STYLE = {"passed": "green", "rejected": "bold red", "incorrect": "red",
         "compile_error": "magenta", "crashed": "magenta", "timeout": "yellow",
         "missing": "dim", "unverified": "yellow"}


def _console() -> Console:
    console = Console(highlight=False)
    if not console.is_terminal:  # logs and pipes: wide enough for the verdict table on one line
        console = Console(highlight=False, width=max(console.width, 120))
    return console


class JobProgress:
    """A progress bar over jobs on stderr (so --json output stays clean). When stderr is not a
    terminal (CI logs, remote runs) a bar is invisible until the end, so each finished job
    prints one line instead: a killed run still shows how far it got."""

    def __init__(self, total: int, quiet: bool = False) -> None:
        console = Console(stderr=True)
        self._lines = not quiet and not console.is_terminal
        self._total, self._finished, self._started = total, 0, time.monotonic()
        self._job_started: dict[str, float] = {}
        self._lock = threading.Lock()  # jobs finish on several threads with --jobs/--devices
        self._progress = Progress(TextColumn("[bold]verify"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("{task.description}"), TimeElapsedColumn(),
                                  console=console, disable=quiet or self._lines, transient=False)
        self._bar = self._progress.add_task("", total=total)

    def __enter__(self) -> JobProgress:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.__exit__(*exc)

    def start(self, name: str) -> None:
        with self._lock:
            self._job_started[name] = time.monotonic()
            self._progress.update(self._bar, description=name)

    def done(self, name: str, verdict: str) -> None:
        with self._lock:
            self._finished += 1
            self._progress.update(self._bar, advance=1, description=f"{name}: {verdict}")
            if self._lines:
                now = time.monotonic()
                took = now - self._job_started.get(name, now)
                print(f"verify [{self._finished}/{self._total}] {name}: {verdict} "
                      f"({took:.1f} s, {now - self._started:.0f} s total)",
                      file=sys.stderr, flush=True)


def _fmt(value: float | None, spec: str = ".2e") -> str:
    return "—" if value is None else format(value, spec)


def print_report(report: dict, as_json: bool = False, out_dir: Path | None = None) -> None:
    if as_json:
        print(json.dumps(report, indent=1, default=str))
        return
    console = _console()
    env = report["environment"]
    table = Table(title=f"kgb verify — {report['submission']['name']} on {env['device_name']}")
    for col in ("task", "category", "verdict", "rule", "cases", "max rel err", "time ms"):
        table.add_column(col, no_wrap=True)
    for job in report["jobs"]:
        cov = job["coverage"]
        cases = f"{cov['passed']}/{cov['cases']}" + (f" +{cov['not_checkable']} n/c"
                                                     if cov["not_checkable"] else "")
        time = "n/a" if not env["timings_meaningful"] else _fmt(job["time_ms"], ".3f")
        table.add_row(job["task"], job["category"],
                      f"[{STYLE.get(job['verdict'], '')}]{job['verdict']}[/]",
                      job["rule"] or "", cases if cov["cases"] else "",
                      _fmt(job["max_rel_l2_err"]), time)
    console.print(table)
    counts = {k: v for k, v in report["summary"]["counts"].items() if v}
    console.print("  ".join(f"[{STYLE.get(k, '')}]{k}: {v}[/]" for k, v in counts.items()))
    for job in report["jobs"]:
        if job["verdict"] not in ("passed", "missing") and job["message"]:
            where = f" at {job['location']}" if job.get("location") else ""
            console.print(f"  [dim]{job['task']}[/]: {job['message']}{where}")
    if env["interpreter"]:
        console.print("[dim]CPU run: kernels ran in Triton's interpreter, so no timing is "
                      "meaningful (n/a); 'n/c': cases the interpreter cannot check, left to the "
                      "GPU run.[/]")
    if "cost" in report:
        from kgb.cost.render import terminal as cost_tables

        console.print(cost_tables(report["cost"]))
    if not report["complete"]:
        console.print("[yellow]incomplete run: it stopped before every job finished; "
                      "`kgb verify SUBMISSION --out DIR --resume` continues it[/]")
    sandbox = env["sandbox"]
    console.print(f"[dim]sandbox {sandbox['backend']} (isolation: {sandbox['isolation']}), "
                  f"seed {report['seed']}[/]")
    if out_dir is not None:
        console.print(f"report: {out_dir / 'report.json'}")


def print_task_table(tasks: Iterable) -> None:
    table = Table(title="kgb task suite")
    for col in ("id", "category", "level", "dtypes", "shapes", "compare"):
        table.add_column(col)
    for t in sorted(tasks, key=lambda t: t.id):
        table.add_row(t.id, t.category, str(t.level), ", ".join(t.dtypes),
                      ", ".join(s.name for s in t.shapes), t.compare)
    _console().print(table)


def print_rules(as_json: bool = False) -> None:
    from kgb.anticheat.registry import LAYERS, all_rules

    rules = all_rules()
    if as_json:
        print(json.dumps([{"id": r.id, "layer": r.layer, "name": r.name, "threats": r.threats,
                           "summary": r.summary, "hint": r.hint} for r in rules], indent=1))
        return
    table = Table(title="kgb anti-cheat rules")
    for col in ("id", "layer", "name", "threats", "catches"):
        table.add_column(col)
    for r in rules:
        table.add_row(r.id, LAYERS[r.layer], r.name, ", ".join(map(str, r.threats)), r.summary)
    _console().print(table)
