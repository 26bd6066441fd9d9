"""The `kgb` command line: a Click group, one small function per command, imports kept lazy so
`kgb --help` is instant. Errors a user can cause arrive as KgbError and leave as one line on
stderr plus a documented exit code (kgb.errors.ExitCode); nothing else prints tracebacks."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kgb.errors import ExitCode, KgbError

DEFAULT_TASKS = Path(__file__).resolve().parent.parent / "tasks"


@click.group()
@click.version_option(package_name="kgb")
def cli() -> None:
    """kgb — verify generated Triton kernels and measure them honestly.

    Exit codes: 0 the run completed (whatever the verdicts); 1 `lint`/`sandbox check` found
    problems; 2 bad input; 3 infrastructure failure; 4 a --fail-under threshold missed;
    130 interrupted."""


@cli.command()
@click.argument("submissions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--tasks", "tasks_dir", type=click.Path(path_type=Path), default=None,
              show_default="the manifest's [submission] tasks (kgb init --tasks), else the "
                           "bundled suite", help="Task suite folder.")
@click.option("--task", "task_id", default=None, metavar="ID",
              help="SUBMISSION is one kernel FILE.py answering task ID: no manifest needed.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("out"),
              show_default=True, help="Folder for report.json and per-job logs.")
@click.option("--device", type=click.Choice(["cpu", "cuda", "auto"]), default="auto",
              show_default=True, help="cpu runs kernels through Triton's interpreter.")
@click.option("--sandbox", "sandbox_name", default="auto", show_default=True,
              type=click.Choice(["auto", "docker", "bwrap", "process"]),
              help="Isolation backend (docs/sandboxes.md).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Run-time seconds per job, compiling and autotuning apart (default 300 on "
                   "GPU, 600 on CPU).")
@click.option("--only", "only", default=None, help="Comma-separated task ids to run.")
@click.option("--seed", type=click.IntRange(0, (1 << 63) - 1), default=None,
              help="Reuse a run seed (to reproduce a report); default: a fresh secret one.")
@click.option("--pricing", type=click.Path(path_type=Path), default=None,
              help="TOML price table for the submission's tokens.jsonl (see `kgb cost`).")
@click.option("--limit", "limits", multiple=True, metavar="KEY=VALUE",
              help="Sandbox limit override, e.g. memory=4g, pids=128, output=1g, tmp=256m, "
                   "cpus=2, compile=600 and compile_case=30 (compile/autotune seconds: a job "
                   "gets compile_case per case, at least compile) (repeatable).")
@click.option("--devices", default=None, metavar="0,1|all",
              help="GPU runs: the GPUs to use, one job per GPU at a time (default: GPU 0).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Jobs at once: interpreter jobs on the CPU; on GPUs, jobs per GPU (timed: "
                   "each timed window holds the GPU's timing lock, the other jobs frozen).")
@click.option("--resume", is_flag=True,
              help="Continue the stopped run in --out: keep its seed and finished jobs, run the "
                   "rest (same submission, suite and options required).")
@click.option("--force", is_flag=True,
              help="Replace the run already in --out (without it, a folder holding another "
                   "run's report is refused).")
@click.option("--fail-under", "fail_under", default=None, metavar="NAME=VALUE,...",
              help="Exit 4 when a rate of the run is below its threshold, e.g. correct=0.9 or "
                   "fast_1=0.5 (names: compile, correct, correct_given_compiled, fast_0 .. "
                   "fast_2, geomean: over the submitted kernels; coverage: the share of the "
                   "suite's tasks submitted).")
@click.option("--feedback", "show_feedback", is_flag=True,
              help="After the table, print each job's feedback (what failed, where, how to "
                   "fix it; also in report.json).")
@click.option("--static", "static_layer", type=click.Choice(["on", "off"]), default="on",
              show_default=True,
              help="Research option: 'off' skips layer 1 so layers 2 and 3 are judged alone.")
@click.option("--timing", type=click.Choice(["on", "off"]), default="on", show_default=True,
              help="GPU runs: time every kernel that passes ('off': correctness and anti-cheat "
                   "checks only, no speed figures).")
@click.option("--baselines", type=click.Choice(["all", "eager", "none"]), default="all",
              show_default=True,
              help="PyTorch baselines timed beside each kernel: eager and torch.compile, eager "
                   "only, or none (no speedups).")
@click.option("--cuda-graph", "cuda_graph", is_flag=True,
              help="GPU runs: time each call as a CUDA-graph replay (captured beforehand, L2 "
                   "flush kept), kernels and baselines alike: for launch-bound kernels.")
@click.option("--baseline-cache", "baseline_cache", default=None, metavar="DIR|off",
              help="GPU runs: the trusted store of PyTorch baseline timings reused across runs "
                   "while device, clocks, versions, task and case match (default: "
                   "$XDG_CACHE_HOME/kgb/baselines or ~/.cache/kgb/baselines; 'off': time "
                   "every baseline afresh). docs/timing.md.")
@click.option("--ray", "ray_address", default=None, metavar="auto|local|HOST:PORT|ray://...",
              help="Run the jobs on a Ray cluster: one actor per GPU (or CPU) runs kgb's own "
                   "sandboxed jobs there; this host grades and writes the reports. 'auto' joins "
                   "the running cluster, 'local' starts one here. Needs the extra: pip install "
                   "-e '.[ray]' (docs/scale.md).")
@click.option("--warm", type=click.Choice(["auto", "on", "off"]), default="auto",
              show_default=True,
              help="Warm slots: each slot starts its next job's sandbox (and the worker's "
                   "imports) while the current job runs; every candidate still gets a fresh "
                   "process in a fresh sandbox. 'off': each job starts at its turn; 'auto': on "
                   "for GPU runs and where the CPUs outnumber the slots twice.")
@click.option("--shard-cases", "shard_cases", type=click.Choice(["auto", "on", "off"]),
              default="auto", show_default=True,
              help="'auto': a task's cases run as several jobs (shards) on slots that would "
                   "otherwise sit idle, where that saves more than a worker's start-up; each "
                   "task is still graded once over all its cases. 'on': wherever a slot would "
                   "idle; 'off': one job per task.")
@click.option("--json", "as_json", is_flag=True, help="Print report.json instead of a table.")
def verify(submissions: tuple[Path, ...], tasks_dir: Path | None, task_id: str | None,
           out_dir: Path, device: str, sandbox_name: str,
           timeout: float | None, only: str | None, seed: int | None, pricing: Path | None,
           limits: tuple[str, ...], devices: str | None, jobs: int, resume: bool, force: bool,
           fail_under: str | None, show_feedback: bool, static_layer: str, timing: str,
           baselines: str, cuda_graph: bool, baseline_cache: str | None,
           ray_address: str | None, warm: str, shard_cases: str, as_json: bool) -> None:
    """Verify every kernel of SUBMISSION (.tar, .tar.gz or folder) against the task suite, or
    one kernel FILE.py with --task ID; several SUBMISSIONS (or a folder of them) are a batch:
    OUT/<name>/ each, OUT/summary.json, one seed and one reference cache for all. The
    submission format: docs/submission.md (`kgb init` writes a skeleton)."""
    import tempfile

    from kgb.quickstart import remembered_tasks, single_kernel_submission
    from kgb.runner.verify import VerifyOptions, run_verify

    gates = _gates(fail_under)
    from kgb.runner.batch import is_submission

    submission = submissions[0]
    if len(submissions) > 1 or (submission.is_dir() and not is_submission(submission)):
        _verify_batch(submissions, task_id, gates, as_json, VerifyOptions(
            submission=submission, tasks_dir=tasks_dir or DEFAULT_TASKS, out_dir=out_dir,
            device=device, sandbox=sandbox_name, timeout_s=timeout, seed=seed, pricing=pricing,
            limits=limits, resume=resume, devices=devices, jobs=jobs,
            static=static_layer == "on", timing=timing == "on", baselines=baselines,
            force=force, cuda_graph=cuda_graph, baseline_cache=baseline_cache,
            ray=ray_address, warm=None if warm == "auto" else warm == "on",
            shard_cases=shard_cases,
            only=tuple(t.strip() for t in only.split(",") if t.strip()) if only else None))
        return
    scratch = tempfile.TemporaryDirectory(prefix="kgb-one-kernel-")
    with scratch:
        if task_id is not None:
            if submission.is_dir() or submission.suffix != ".py":
                raise click.BadParameter("--task goes with one kernel FILE.py; a submission's "
                                         "manifest names the tasks of its kernels",
                                         param_hint="--task")
            submission = single_kernel_submission(submission, task_id,
                                                  Path(scratch.name) / "submission")
        if tasks_dir is None:
            tasks_dir = remembered_tasks(submission, DEFAULT_TASKS)
            if tasks_dir is not None:
                click.echo(f"tasks: {tasks_dir} (the manifest's [submission] tasks; --tasks "
                           "overrides)", err=True)
        data = run_verify(VerifyOptions(
            submission=submission, tasks_dir=tasks_dir or DEFAULT_TASKS, out_dir=out_dir,
            device=device, sandbox=sandbox_name, timeout_s=timeout, seed=seed, pricing=pricing,
            limits=limits, resume=resume, devices=devices, jobs=jobs,
            static=static_layer == "on", timing=timing == "on", baselines=baselines,
            force=force, cuda_graph=cuda_graph, only_submitted=task_id is not None,
            baseline_cache=baseline_cache, ray=ray_address,
            warm=None if warm == "auto" else warm == "on", shard_cases=shard_cases,
            only=tuple(t.strip() for t in only.split(",") if t.strip()) if only else None),
            as_json=as_json, feedback=show_feedback)
    _check_gates(data, gates)


def _verify_batch(submissions: tuple[Path, ...], task_id: str | None,
                  gates: dict[str, float] | None, as_json: bool, options) -> None:
    """Many submissions in one run (kgb.runner.batch): OUT/<name>/ each, OUT/summary.json."""
    import json

    from kgb.runner.batch import run_batch

    if task_id is not None:
        raise click.BadParameter("--task verifies one kernel FILE.py; a batch takes "
                                 "submissions", param_hint="--task")
    if gates:
        raise click.BadParameter("--fail-under judges one submission; a batch's figures are "
                                 "per submission in OUT/summary.json", param_hint="--fail-under")
    summary = run_batch(submissions, options, quiet=as_json)
    if as_json:
        click.echo(json.dumps(summary, indent=1))
    else:
        click.echo(f"batch: {len(summary['submissions'])} submission(s), seed {summary['seed']}; "
                   f"summary: {options.out_dir.resolve() / 'summary.json'}")


def _gates(text: str | None) -> dict[str, float] | None:
    if text is None:
        return None
    from kgb.metrics.suite import parse_gates

    try:
        return parse_gates(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--fail-under") from None


def _check_gates(report: dict, gates: dict[str, float] | None) -> None:
    if not gates:
        return
    from kgb.errors import BelowGate
    from kgb.metrics.suite import below, rates, timed_run

    missed = below(rates(report["jobs"], timed_run(report.get("environment"))), gates)
    if missed:
        raise BelowGate(f"--fail-under: {'; '.join(missed)}")


@cli.command()
@click.argument("out_dir", type=click.Path(path_type=Path), default=Path("out"))
@click.option("--format", "fmt", type=click.Choice(["table", "json", "md", "html"]),
              default=None, help="table (default), json (report.json), md (report.md) or html "
                                 "(report.html: one self-contained file with charts).")
@click.option("--output", "output", type=click.Path(path_type=Path), default=None,
              help="Write the json, md or html rendering to this file instead of stdout.")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option("--regrade", is_flag=True,
              help="Recompute every verdict from the saved job folders (nothing is run) and "
                   "rewrite OUT_DIR/report.json, report.md and report.html.")
@click.option("--feedback", "show_feedback", is_flag=True,
              help="After the table, print each job's feedback.")
@click.option("--fail-under", "fail_under", default=None, metavar="NAME=VALUE,...",
              help="Exit 4 when a rate of the run is below its threshold (as in verify).")
def report(out_dir: Path, fmt: str | None, output: Path | None, as_json: bool, regrade: bool,
           show_feedback: bool, fail_under: str | None) -> None:
    """Show the report of a finished or stopped run from OUT_DIR/report.json (a run folder or
    the file), re-rendered without running anything."""
    from kgb.report.json_report import read_report
    from kgb.report.terminal import print_report

    if as_json and fmt not in (None, "json"):
        raise click.BadParameter(f"--json and --format {fmt} disagree; give one",
                                 param_hint="--json")
    fmt = "json" if as_json else (fmt or "table")
    if output is not None and fmt == "table":
        raise click.BadParameter("the table is for the terminal; --output takes --format "
                                 "json, md or html", param_hint="--output")
    gates = _gates(fail_under)
    if regrade:
        from kgb.runner.regrade import regrade as run_regrade

        data, changed = run_regrade(out_dir)
        click.echo(f"regraded {len(data['jobs'])} job(s) from {out_dir}; "
                   f"{len(changed)} verdict(s) changed" +
                   (f": {', '.join(changed[:10])}" if changed else ""), err=True)
    else:
        data = read_report(out_dir)
    if fmt == "table":
        print_report(data, out_dir=out_dir, feedback=show_feedback)
    else:
        _emit(_render(data, fmt), output)
    _check_gates(data, gates)


def _render(data: dict, fmt: str) -> str:
    if fmt == "md":
        from kgb.report.markdown import render_markdown

        return render_markdown(data)
    if fmt == "html":
        from kgb.report.html import render_html

        return render_html(data)
    import json

    return json.dumps(data, indent=1, default=str) + "\n"


def _emit(text: str, output: Path | None) -> None:
    """`text` to stdout, or to `output` (an unwritable path is bad input, one line)."""
    if output is None:
        click.echo(text, nl=False)
        return
    from kgb.errors import BadInput
    from kgb.jsonfiles import write_text_atomic

    try:
        write_text_atomic(output, text)
    except OSError as exc:
        raise BadInput(f"--output {output}: cannot write ({exc.strerror})") from None
    click.echo(f"wrote {output}", err=True)


@cli.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare(runs: tuple[Path, ...], as_json: bool) -> None:
    """Runs of one submission on different hardware side by side: each RUN (a report.json or a
    `kgb verify --out` folder) is a column of verdicts and speedups over eager; P_hw per task is
    the share of timed runs where the kernel is correct and at least 0.8x eager. Exit 2 when a
    RUN is missing or not a kgb report."""
    from kgb.report.compare import compare_paths, print_comparison, to_json

    comparison = compare_paths(runs)
    if as_json:
        click.echo(to_json(comparison))
    else:
        print_comparison(comparison)


@cli.group()
def tasks() -> None:
    """Inspect the task suite."""


@tasks.command("list")
@click.option("--tasks", "tasks_dir", type=click.Path(path_type=Path), default=DEFAULT_TASKS)
@click.option("--category", default=None, help="Only this category (e.g. Normalization).")
@click.option("--source", default=None, help="Only this source (aten, vllm, cublas, ...).")
@click.option("--level", type=click.IntRange(1, 3), default=None, help="Only this level.")
@click.option("--direction", type=click.Choice(["forward", "backward"]), default=None)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per task, in a list.")
@click.option("--summary", "with_summary", is_flag=True,
              help="Counts per precision (fp32 ... fp4) and category; with --json an object "
                   "{tasks, summary}.")
def tasks_list(tasks_dir: Path, category: str | None, source: str | None, level: int | None,
               direction: str | None, as_json: bool, with_summary: bool) -> None:
    """One line per task: id, category, level, dtypes, shapes."""
    import json

    from kgb.report.terminal import print_task_table
    from kgb.tasks.loader import load_suite

    chosen = [t for t in load_suite(tasks_dir).values()
              if (category is None or t.category.lower() == category.lower())
              and (source is None or t.source == source)
              and (level is None or t.level == level)
              and (direction is None or t.direction == direction)]
    from kgb.tasks.coverage import summary

    if as_json:
        rows = [{"id": t.id, "category": t.category, "source": t.source, "level": t.level,
                 "direction": t.direction, "dtypes": list(t.dtypes), "entry": t.entry,
                 "signature": t.signature, "shapes": [s.name for s in t.shapes],
                 "precisions": list(t.precisions), "inplace": list(t.inplace)}
                for t in sorted(chosen, key=lambda t: t.id)]
        listing = {"tasks": rows, "summary": summary(chosen)} if with_summary else rows
        click.echo(json.dumps(listing, indent=1))
        return
    if with_summary:
        counts = summary(chosen)
        click.echo(f"{counts['tasks']} task(s); per precision: " + ", ".join(
            f"{tag} {n}" for tag, n in counts["precisions"].items()))
        click.echo("per category: " + ", ".join(f"{c} {n}"
                                                 for c, n in counts["categories"].items()))
        click.echo(f"in place: {len(counts['inplace'])}")
        return
    print_task_table(chosen)


@tasks.command("prompt")
@click.argument("task_id")
@click.option("--tasks", "tasks_dir", type=click.Path(path_type=Path), default=DEFAULT_TASKS)
def tasks_prompt(task_id: str, tasks_dir: Path) -> None:
    """What a generator is given for TASK_ID: the spec, the file's rules, a file to start from."""
    from kgb.tasks.loader import load_suite
    from kgb.tasks.skeleton import prompt
    from kgb.tasks.spec import find_task

    click.echo(prompt(find_task(load_suite(tasks_dir), task_id)))


@tasks.command("show")
@click.argument("task_id")
@click.option("--tasks", "tasks_dir", type=click.Path(path_type=Path), default=DEFAULT_TASKS)
def tasks_show(task_id: str, tasks_dir: Path) -> None:
    """The spec a generator is given for TASK_ID."""
    from kgb.tasks.loader import load_suite
    from kgb.tasks.spec import find_task, render_spec

    click.echo(render_spec(find_task(load_suite(tasks_dir), task_id)))


@tasks.command("import-kernelbench")
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path),
              default=Path("tasks-kernelbench"),
              show_default=True, help="Task folder to write into (then: --tasks OUT).")
@click.option("--category", default=None,
              help="Category of every imported task (default: guessed from each file name).")
@click.option("--level", type=click.IntRange(1, 3), default=None,
              help="Level of every imported task (default: from a levelN folder, else 1).")
@click.pass_context
def tasks_import_kernelbench(ctx: click.Context, source: Path, out_dir: Path,
                             category: str | None, level: int | None) -> None:
    """Turn KernelBench problem files (SOURCE: a file or a folder) into kgb tasks answered by
    a `class ModelNew` kernel file (docs/tasks.md, "KernelBench problems"). Bad files are
    reported one line each (exit 2); the others are imported."""
    from kgb.tasks.kernelbench import import_problems

    done = import_problems(source, out_dir, category, level)
    if done.imported:
        from kgb.tasks.known_folders import register

        register(out_dir)  # the user's own import: `kgb init --tasks` manifests may name it
    for task_id, folder in done.imported:
        click.echo(f"{task_id}  {folder}")
    for line in done.failed:
        click.echo(f"kgb: {line}", err=True)
    click.echo(f"{len(done.imported)} imported, {len(done.failed)} failed; list them with "
               f"`kgb tasks list --tasks {out_dir}`, start a submission with `kgb init SUB "
               f"--task ID --tasks {out_dir}` (the folder is recorded in its manifest), verify "
               f"with `kgb verify SUB --tasks {out_dir}`", err=True)
    ctx.exit(ExitCode.BAD_INPUT if done.failed else ExitCode.OK)


@cli.group()
def suite() -> None:
    """Check the task suite itself on this machine."""


@suite.command("check")
@click.option("--tasks", "tasks_dir", type=click.Path(path_type=Path), default=DEFAULT_TASKS)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("out/suite"),
              show_default=True)
@click.option("--device", type=click.Choice(["cpu", "cuda", "auto"]), default="auto",
              show_default=True)
@click.option("--sandbox", "sandbox_name", default="auto", show_default=True,
              type=click.Choice(["auto", "docker", "bwrap", "process"]))
@click.option("--only", default=None, help="Comma-separated task ids (default: every task).")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Jobs at once: interpreter jobs on the CPU; on GPUs, jobs per GPU (timed: "
                   "each timed window holds the GPU's timing lock, the other jobs frozen).")
@click.option("--devices", default=None, metavar="0,1|all",
              help="GPU runs: the GPUs to use, one job per GPU at a time (default: GPU 0).")
@click.option("--timing", type=click.Choice(["on", "off"]), default="on", show_default=True,
              help="GPU runs: time every solution that passes ('off': correctness only).")
@click.option("--baselines", type=click.Choice(["all", "eager", "none"]), default="all",
              show_default=True, help="PyTorch baselines timed beside each solution.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None)
@click.option("--force", is_flag=True, help="Replace an earlier check in --out.")
@click.option("--resume", is_flag=True,
              help="Continue a stopped check in --out (same options): finished tasks are kept.")
@click.pass_context
def suite_check(ctx: click.Context, tasks_dir: Path, out_dir: Path, device: str,
                sandbox_name: str, only: str | None, jobs: int, devices: str | None,
                timing: str, baselines: str, timeout: float | None, force: bool,
                resume: bool) -> None:
    """Every task's own solution through the whole pipeline: the hardware adaptation check.
    Writes OUT/adaptation.md; exits 1 when a solution does not pass here. A GPU check of the
    whole suite takes hours on one GPU: split it with --only (a category's ids) and --devices."""
    from kgb.suite.check import run_suite_check

    chosen = tuple(t.strip() for t in only.split(",") if t.strip()) if only else None
    report = run_suite_check(tasks_dir, out_dir, device=device, sandbox=sandbox_name,
                             only=chosen, jobs=jobs, timeout_s=timeout, force=force,
                             devices=devices, timing=timing == "on", baselines=baselines,
                             resume=resume)
    failed = [j["task"] for j in report["jobs"] if j["verdict"] != "passed"]
    rates = report["summary"]["rates"]
    click.echo(f"{rates['correct']} of {rates['tasks']} solutions passed on "
               f"{report['environment'].get('device_name')}; table: {out_dir / 'adaptation.md'}")
    for task in failed[:20]:
        click.echo(f"  not passed: {task}")
    ctx.exit(ExitCode.FINDINGS if failed else ExitCode.OK)


@cli.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--task", "task_ids", multiple=True, required=True, metavar="ID",
              help="A task to write a kernel file for (repeatable); `kgb tasks list`.")
@click.option("--name", default=None, help="The submission's name (default: the folder's).")
@click.option("--tasks", "tasks_dir", type=click.Path(path_type=Path), default=DEFAULT_TASKS,
              show_default="the bundled suite",
              help="Task folder (e.g. imported KernelBench tasks); recorded in the manifest.")
def init(folder: Path, task_ids: tuple[str, ...], name: str | None, tasks_dir: Path) -> None:
    """Write a skeleton submission in FOLDER: manifest.toml and one kernel file per task."""
    from kgb.tasks.loader import load_suite
    from kgb.tasks.skeleton import write_skeleton
    from kgb.tasks.spec import find_task

    suite = load_suite(tasks_dir)
    chosen = [find_task(suite, t) for t in dict.fromkeys(task_ids)]
    other = tasks_dir.resolve() != DEFAULT_TASKS.resolve()
    written = write_skeleton(folder, chosen, name or folder.resolve().name,
                             tasks_dir.resolve() if other else None)
    if other:  # the user named this folder: a manifest that records it may be honoured
        from kgb.tasks.known_folders import register

        register(tasks_dir)
    for path in written:
        click.echo(f"wrote {path}")
    again = f" --tasks {tasks_dir}" if other else ""
    click.echo(f"fill in the kernels, then: kgb verify {folder}{again}  (format: "
               "docs/submission.md)")


@cli.command()
@click.option("--json", "as_json", is_flag=True)
def rules(as_json: bool) -> None:
    """List every anti-cheat rule: id, layer, threats covered, what it catches."""
    from kgb.report.terminal import print_rules

    print_rules(as_json=as_json)


@cli.command()
@click.argument("tokens", type=click.Path(path_type=Path))
@click.option("--pricing", type=click.Path(path_type=Path), default=None,
              help="TOML price table (USD per million tokens); see examples/pricing.example.toml.")
@click.option("--report", type=click.Path(path_type=Path), default=None,
              help="report.json of `kgb verify`: verdicts and speedups to join with.")
@click.option("--manifest", type=click.Path(path_type=Path), default=None,
              help="manifest.toml: kernel task ids and declared [submission.tokens] totals.")
@click.option("--json", "as_json", is_flag=True, help="Print the full cost section as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print one CSV row per task.")
def cost(tokens: Path, pricing: Path | None, report: Path | None, manifest: Path | None,
         as_json: bool, as_csv: bool) -> None:
    """Tokens, cost and wall time of TOKENS (a tokens.jsonl), with an audit of the log."""
    from kgb.cost import render, section_from_files

    if as_json and as_csv:
        raise click.UsageError("--json and --csv are exclusive")
    section = section_from_files(tokens, pricing, report, manifest)
    if as_json or as_csv:
        click.echo(render.to_json(section) if as_json else render.to_csv(section), nl=as_json)
    else:
        from kgb.report.plain import console

        console(min_width=160).print(render.terminal(section))


@cli.group(invoke_without_command=True)
@click.option("--gpu", type=int, default=0, show_default=True, help="GPU index (PCI bus order).")
@click.option("--json", "as_json", is_flag=True, help="Print the facts as JSON.")
@click.pass_context
def hw(ctx: click.Context, gpu: int, as_json: bool) -> None:
    """This machine's GPU and the peaks kgb uses for it (datasheet, calibration)."""
    if ctx.invoked_subcommand is not None:
        return
    import json
    import os

    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    from kgb.bench.device_info import describe, render

    info = describe(gpu)
    click.echo(json.dumps(info, indent=1) if as_json else render(info))


@hw.command("calibrate")
@click.option("--gpu", type=int, default=0, show_default=True, help="GPU index (PCI bus order).")
def hw_calibrate(gpu: int) -> None:
    """Measure copy bandwidth and matrix throughput on this GPU and cache them for kgb."""
    import os

    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    import torch

    from kgb.bench.calibrate import calibrate
    from kgb.bench.hw import datasheet, implausible, save_calibration
    from kgb.errors import BadInput

    if not torch.cuda.is_available():
        raise BadInput("no CUDA device is visible; run `kgb hw calibrate` on the GPU "
                       "machine that runs `kgb verify --device cuda`")
    if gpu >= torch.cuda.device_count():
        raise BadInput(f"--gpu {gpu}: only {torch.cuda.device_count()} GPU(s) visible")
    peaks = calibrate(f"cuda:{gpu}")
    wrong = implausible(peaks, datasheet(peaks.device))
    if wrong:
        raise BadInput(f"calibration not saved: {wrong}; rerun on an idle GPU, and report it "
                       "if it repeats")
    path = save_calibration(peaks)
    rates = ", ".join(f"{k} {v:g}" for k, v in peaks.tflops.items() if not k.startswith("int"))
    click.echo(f"{peaks.device}: copy {peaks.bandwidth_gbps:g} GB/s, TFLOP/s {rates}")
    click.echo(f"saved to {path}")


@cli.group()
def sandbox() -> None:
    """Check and clean up the sandbox backends (docker, bwrap, process)."""


@sandbox.command("check")
@click.option("--backend", default="auto", show_default=True,
              help="auto, docker, bwrap or process.")
@click.option("--device", default="cpu", show_default=True,
              help="cuda:N also checks that only that GPU is visible.")
@click.option("--stdout-gb", type=float, default=10.0, show_default=True,
              help="Size of the stdout flood probe.")
@click.option("--only", default=None, help="Comma-separated property names.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def sandbox_check(ctx: click.Context, backend: str, device: str, stdout_gb: float,
                  only: str | None, as_json: bool) -> None:
    """Run hostile probes in a backend. Exit 0: every property holds; 1: one fails;
    3: the backend is unavailable."""
    from kgb.sandbox.selfcheck import main as check

    ctx.exit(check(backend, device, stdout_gb, only, as_json, echo=click.echo))


@sandbox.command("clean")
@click.option("--run", "run_id", default=None, help="Only this run id's containers.")
@click.option("--all", "everything", is_flag=True,
              help="Also containers whose kgb process is still running.")
def sandbox_clean(run_id: str | None, everything: bool) -> None:
    """Remove leftover kgb containers and orphaned sandbox processes."""
    from kgb.sandbox.clean import clean

    for line in clean(run_id, everything):
        click.echo(line)


@cli.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--task", "task_id", default=None,
              help="Task id: its entry, forbid list and category (default: entry `run`).")
@click.option("--tasks", "tasks_dir", type=click.Path(path_type=Path), default=DEFAULT_TASKS,
              show_default="the bundled suite", help="Task suite folder.")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.pass_context
def lint(ctx: click.Context, file: Path, task_id: str | None, tasks_dir: Path,
         as_json: bool) -> None:
    """Check one kernel FILE with the static anti-cheat rules (layer 1).

    Prints `file:line:col RULE message` per finding. Exit 0: clean; 1: a rule rejects it;
    2: bad input."""
    from kgb.anticheat.static import analyze_file, format_findings
    from kgb.errors import BadInput

    if not file.is_file():
        raise BadInput(f"{file}: no such file; pass the kernel file to lint")
    task = None
    if task_id is not None:
        from difflib import get_close_matches

        from kgb.tasks.loader import load_suite

        suite = load_suite(tasks_dir)
        if task_id not in suite:
            near = get_close_matches(task_id, list(suite), n=3)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise BadInput(f"unknown task id {task_id!r}{hint}; `kgb tasks list` shows them")
        task = suite[task_id]
    try:
        findings = analyze_file(file, task)
    except OSError as exc:
        raise BadInput(f"{file}: cannot read ({exc.strerror})") from None
    text = format_findings(findings, as_json, file=str(file), task=task_id,
                           entry=task.entry if task else "run")
    if text:
        click.echo(text)
    ctx.exit(ExitCode.FINDINGS if findings else ExitCode.OK)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; anything but loopback needs --token-file.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port (0: any free one, printed at start).")
@click.option("--token-file", type=click.Path(path_type=Path), default=None,
              help="File holding the bearer token every POST must send.")
@click.option("--slots", type=click.IntRange(min=1), default=None,
              help="Verifications at once [default: CPU cores // 2 on the CPU, 1 on a GPU].")
@click.option("--queue", type=click.IntRange(min=0), default=None,
              help="Requests that may wait for a slot; more get 503 [default: 2 x slots].")
@click.option("--device", type=click.Choice(["cpu", "cuda", "auto"]), default="auto",
              show_default=True)
@click.option("--sandbox", "sandbox_name", default="auto", show_default=True,
              help="Sandbox backend: auto, docker, bwrap or process.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds a candidate's run may take, as kgb verify --timeout.")
@click.option("--request-timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds one verification may take in all; then 504, infra_error "
                   "[default: 2 x --timeout + 60].")
@click.option("--max-request-bytes", type=click.IntRange(min=1024), default=8 << 20,
              show_default=True, help="Largest request body accepted (413 above).")
@click.option("--tasks", "tasks_dir", type=click.Path(path_type=Path), default=DEFAULT_TASKS,
              show_default="the bundled suite", help="Task suite folder.")
@click.option("--warm", type=click.Choice(["auto", "on", "off"]), default="auto",
              show_default=True,
              help="Warm slots, as kgb verify --warm: each slot keeps its next request's kgb "
                   "process started and prepares a waiting request's sandbox ahead; every "
                   "request still gets a fresh process in a fresh sandbox.")
@click.option("--ray", "ray_address", default=None, metavar="ADDRESS",
              help="The slots are Ray actors of this cluster (auto: the running one; local: "
                   "one started here), one per GPU (per CPU on CPU runs, or --slots); "
                   "needs the ray extra. Warm slots are off there.")
def serve(host: str, port: int, token_file: Path | None, slots: int | None,
          queue: int | None, device: str, sandbox_name: str, timeout: float | None,
          request_timeout: float | None, max_request_bytes: int, tasks_dir: Path,
          warm: str, ray_address: str | None) -> None:
    """Serve verifications over HTTP: POST /v1/verify {"task": ID, "source": "..."} (or a
    submission archive) answers the verdict JSON; GET /v1/health. docs/api.md has the fields,
    status codes, limits and a client."""
    import signal

    from kgb.serve.http import KgbServer, ServeOptions, read_token
    from kgb.verifier import Verifier

    token = read_token(token_file) if token_file is not None else None
    options = ServeOptions(host=host, port=port, token=token, queue=queue,
                           max_request_bytes=max_request_bytes)
    if token is None:
        KgbServer.check_address(host)
    with Verifier(slots, tasks=tasks_dir, device=device, sandbox=sandbox_name,
                  timeout_s=timeout, deadline_s=request_timeout, warm=warm,
                  ray=ray_address) as verifier:
        server = KgbServer(options, verifier)
        bound, port = server.server_address[:2]
        click.echo(f"kgb serve: listening on http://{bound!s}:{port} ({verifier.slots} "
                   f"{'warm ' if verifier.warm else ''}slot(s), "
                   f"{'token required' if token else 'no token: loopback only'})",
                   err=True)
        def stop(signum: int, _frame: object) -> None:  # SIGTERM ends it as Ctrl-C does:
            raise KeyboardInterrupt  # the Verifier's exit ends every child it started

        signal.signal(signal.SIGTERM, stop)
        try:
            server.serve_forever()
        finally:
            server.server_close()


def main() -> None:
    try:
        code = cli.main(standalone_mode=False)  # a command's ctx.exit(n) comes back as n
        sys.exit(code if isinstance(code, int) else ExitCode.OK)
    except click.exceptions.Abort:  # Click's form of Ctrl-C (e.g. at a prompt)
        click.echo("kgb: interrupted", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except click.ClickException as exc:  # bad option or argument
        click.echo(f"kgb: {exc.format_message()}", err=True)
        sys.exit(ExitCode.BAD_INPUT)
    except KgbError as exc:
        click.echo(f"kgb: {exc.message}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("kgb: interrupted", err=True)
        sys.exit(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # `kgb verify ... | head -1`: the reader left; what was asked for is done (report.json
        # is written before anything is printed). Quietly, as `cat | head` does.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(ExitCode.OK)


# More commands go above main(), one small function each, importing their module lazily.


if __name__ == "__main__":
    main()
