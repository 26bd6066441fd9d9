"""Terminal rendering with rich: the progress bar, the verdict table, the task and rule lists."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from kgb.report import view as V
from kgb.report.plain import console as plain_console
from kgb.report.plain import safe

STYLE = {"passed": "green", "rejected": "bold red", "incorrect": "red",
         "compile_error": "magenta", "crashed": "magenta", "timeout": "yellow",
         "missing": "dim", "unverified": "yellow"}


def _console():
    # Logs and pipes: wide enough for the verdict table on one line, ids never cut.
    return plain_console(min_width=160)


def _styled(value: object, style: str = "") -> Text:
    return Text(safe(value), style=style)


class JobProgress:
    """A progress bar over jobs on stderr (so --json output stays clean). When stderr is not a
    terminal (CI logs, remote runs) a bar is invisible until the end, so each finished job
    prints one line instead: a killed run still shows how far it got.

    `total` counts the submitted kernels: a suite task without a kernel (verdict `missing`)
    runs nothing, so it prints no line and moves no bar (292 `missing` lines said nothing)."""

    def __init__(self, total: int, quiet: bool = False) -> None:
        console = plain_console(stderr=True)
        self._lines = not quiet and not console.is_terminal
        self._total, self._finished, self._started = total, 0, time.monotonic()
        self._job_started: dict[str, float] = {}
        self._lock = threading.Lock()  # jobs finish on several threads with --jobs/--devices
        self._progress = Progress(TextColumn("verify", style="bold"), BarColumn(),
                                  MofNCompleteColumn(),
                                  TextColumn("{task.description}", markup=False),
                                  TimeElapsedColumn(),
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
            self._progress.update(self._bar, description=safe(name, 200))

    def done(self, name: str, verdict: str) -> None:
        if verdict.split(" ")[0] == "missing":  # also "missing (resumed)"
            return
        with self._lock:
            self._finished += 1
            self._progress.update(self._bar, advance=1,
                                  description=safe(f"{name}: {verdict}", 200))
            if self._lines:
                now = time.monotonic()
                took = now - self._job_started.get(name, now)
                print(f"verify [{self._finished}/{self._total}] {safe(name)}: {safe(verdict)} "
                      f"({took:.1f} s, {now - self._started:.0f} s total)",
                      file=sys.stderr, flush=True)


def _fmt(value: float | None, spec: str = ".2e") -> str:
    return "—" if value is None else format(value, spec)


def print_report(report: dict, as_json: bool = False, out_dir: Path | None = None,
                 feedback: bool = False) -> None:
    """The verdict table and notes. Everything in `report` is printed as plain text: the file
    may have been written by anyone (`kgb report OUT`), and its messages come from kernels."""
    if as_json:
        print(json.dumps(report, indent=1, default=str))
        return
    console = _console()
    env = report["environment"]
    title = (f"kgb verify — {safe(report['submission'].get('name'), 80)} on "
             f"{safe(env.get('device_name'), 80)}")
    table = Table(title=title)
    for col in ("task", "category", "verdict", "rule", "cases", "max rel err", "time ms"):
        table.add_column(col, no_wrap=True)
    meaningful = bool(env.get("timings_meaningful"))
    missing = [j for j in report["jobs"] if j.get("verdict") == "missing"]
    for job in report["jobs"]:
        if job.get("verdict") == "missing":
            continue
        cov = job.get("coverage") or {}
        cases = f"{cov.get('passed', 0)}/{cov.get('cases', 0)}" + (
            f" +{cov['not_checkable']} n/c" if cov.get("not_checkable") else "")
        time = "n/a" if not meaningful else _fmt(job.get("time_ms"), ".3f")
        verdict = str(job.get("verdict"))
        table.add_row(_styled(job.get("task")), _styled(job.get("category")),
                      _styled(verdict, STYLE.get(verdict, "")), _styled(job.get("rule") or ""),
                      cases if cov.get("cases") else "", V.error(job.get("max_rel_l2_err")),
                      time)
    console.print(table)
    if missing:
        names = ", ".join(safe(j.get("task"), 60) for j in missing[:4])
        more = f" and {len(missing) - 4} more" if len(missing) > 4 else ""
        console.print(Text(f"not submitted: {len(missing)} suite task(s) have no kernel "
                           f"({names}{more}); not rated — the coverage below counts them",
                           style="dim"))
    counts = {k: v for k, v in report["summary"]["counts"].items() if v}
    line = Text()
    for k, v in counts.items():
        line.append(f"{safe(k)}: {v}  ", style=STYLE.get(k, ""))
    console.print(line)
    for job in report["jobs"]:
        if job.get("verdict") not in ("passed", "missing") and job.get("message"):
            where = f" at {safe(job['location'])}" if job.get("location") else ""
            console.print(Text.assemble((safe(job.get("task")), "dim"), ": ",
                                        safe(job["message"]), where))
    for reason, tasks in V.speed_unchecked(report):
        console.print(Text(f"timing check not run ({safe(V.task_list(tasks), 300)}): "
                           f"{safe(reason, 400)}", style="yellow"))
    if env.get("static_layer") == "off":
        console.print(Text("static layer OFF (--static off, a research option): layers 2 and 3 "
                           "judged alone; do not publish these verdicts as kgb's", style="yellow"))
    if env.get("interpreter"):
        console.print(Text("CPU run: kernels ran in Triton's interpreter, so no timing is "
                           "meaningful (n/a); 'n/c': cases the interpreter cannot check, left to "
                           "the GPU run.", style="dim"))
    for warning in report.get("warnings") or ():
        console.print(Text(f"warning: {safe(warning)}", style="yellow"))
    if "cost" in report:
        from kgb.cost.render import terminal as cost_tables

        console.print(cost_tables(report["cost"]))
    if not report["complete"]:
        console.print(Text("incomplete run: it stopped before every job finished; "
                           "`kgb verify SUBMISSION --out DIR --resume` continues it",
                           style="yellow"))
    rates = report["summary"].get("rates")
    if rates and rates.get("tasks"):
        summary = (f"correct {rates['correct']}/{rates['tasks']} ({rates['correct_rate']:.0%}), "
                   f"compiled {rates['compiled']}/{rates['tasks']} submitted kernel(s)")
        fast_1 = rates["fast_p"].get("fast_1")
        if fast_1 is not None:
            summary += f", fast_1 {fast_1:.0%}"
        if rates.get("geomean_speedup_eager") is not None:
            summary += f", geomean speedup over eager {rates['geomean_speedup_eager']:.2f}x"
        if rates.get("suite_tasks") not in (None, rates["tasks"]):
            summary += (f"; coverage: {rates['tasks']} of {rates['suite_tasks']} suite tasks "
                        "submitted")
        console.print(Text(summary))
    unrun = V.unrun_line(report)
    if unrun:
        console.print(Text(safe(unrun, 1200), style="yellow"))
    if feedback:
        for job in report["jobs"]:
            if job.get("verdict") != "missing" and job.get("feedback"):
                console.print(Text(safe(job["feedback"], 4000)))
    sandbox = env.get("sandbox") or {}
    console.print(Text(f"sandbox {safe(sandbox.get('backend'))} (isolation: "
                       f"{safe(sandbox.get('isolation'))}), seed {safe(report['seed'])}",
                       style="dim"))
    if sandbox.get("isolation") == "none":
        console.print(Text("isolation: none — the kernels ran as plain processes with your "
                           "user's rights; for real isolation install Docker or bubblewrap "
                           "(`make sandboxes`, as root) and run again", style="bold yellow"))
    if out_dir is not None:
        console.print(f"report: {out_dir / 'report.json'}")


def print_task_table(tasks: Iterable) -> None:
    table = Table(title="kgb task suite")
    for col in ("id", "category", "level", "dtypes", "shapes", "compare"):
        table.add_column(col, no_wrap=col == "id")
    for t in sorted(tasks, key=lambda t: t.id):
        table.add_row(safe(t.id), safe(t.category), str(t.level), safe(", ".join(t.dtypes)),
                      safe(", ".join(s.name for s in t.shapes)), safe(t.compare))
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
        table.add_row(r.id, LAYERS[r.layer], r.name, ", ".join(map(str, r.threats)),
                      safe(r.summary))
    _console().print(table)
