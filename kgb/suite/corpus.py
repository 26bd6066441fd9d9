"""The cheat corpus: kernels that cheat, one per file, each with a header naming the task it
attacks, the verdict it must get and the threats (threats.md) it exercises:

    # expect: D304|D307      (rules that may catch it, `incorrect`, or `passed` for an attack
                             the harness contains: the kernel is then honest)
    # task: activation.gelu_tanh
    # threats 12, 14: what the kernel does

`python -m kgb.suite.corpus DIR... --device cuda --out OUT` verifies every fixture of DIRs, each
on its own copy of its task in a trimmed suite (layer 1 off unless --static on), and the tasks'
own solutions beside them; it prints one line per kernel and exits 1 when any ends otherwise
than it must. The CPU
test (tests/test_dynamic_corpus.py) and the GPU proof (scripts/gpu/) both use it."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Fixture:
    path: Path
    task: str
    expect: tuple[str, ...]  # rule ids, or ("incorrect",)
    threats: tuple[int, ...]

    @property
    def name(self) -> str:
        return self.path.name


def header(path: Path) -> Fixture:
    found: dict[str, str] = {}
    for line in path.read_text().splitlines()[:3]:
        if m := re.match(r"# (expect|task): (\S+)$", line):
            found[m.group(1)] = m.group(2)
        elif m := re.match(r"# threats? ([\d, ]+):", line):
            found["threats"] = m.group(1)
    # An honest twin (`expect: passed` without a threat) guards against a false positive.
    honest_twin = found.get("expect") == "passed"
    missing = {"expect", "task"} - set(found) | (set() if honest_twin else {"threats"} - set(found))
    if missing:
        raise ValueError(f"{path.name}: header lacks {', '.join(sorted(missing))}")
    expect = tuple(found["expect"].split("|"))
    if not all(e in ("incorrect", "passed") or re.fullmatch(r"D[23]\d\d", e) for e in expect):
        raise ValueError(f"{path.name}: expect must be rule ids, 'incorrect' or 'passed'")
    threats = tuple(int(t) for t in re.findall(r"\d+", found.get("threats", "")))
    return Fixture(path, found["task"], expect, threats)


def load(folders: list[Path]) -> list[Fixture]:
    return [header(p) for folder in folders for p in sorted(folder.glob("*.py"))]


def caught(fixture: Fixture, job: dict) -> bool:
    """The job ended as the fixture's header says."""
    if job.get("verdict") in ("incorrect", "passed"):
        return job["verdict"] in fixture.expect
    return job.get("verdict") == "rejected" and job.get("rule") in fixture.expect


def write_submission(folder: Path, kernels: dict[str, str], name: str = "t") -> Path:
    """A submission folder with one kernel file per task id: {task_id: source}."""
    (folder / "kernels").mkdir(parents=True, exist_ok=True)
    lines = [f'[submission]\nname = "{name}"\n']
    for task, source in kernels.items():
        fname = f"kernels/{task.replace('.', '_')}.py"
        (folder / fname).write_text(source)
        lines.append(f'[[kernels]]\ntask = "{task}"\nfile = "{fname}"\n')
    (folder / "manifest.toml").write_text("\n".join(lines))
    return folder


def trimmed_suite(folder: Path, tasks: Iterable[str] | dict[str, str], shapes: int = 2,
                  gpu_shapes: int = 0, tasks_dir: Path = ROOT / "tasks") -> Path:
    """A copy of the suite's `tasks` with only their first `shapes` CPU shapes, their first
    `gpu_shapes` GPU-only shapes and their first dtype: the same contracts at a fraction of the
    time. `tasks` as {new id: task id} makes copies under new ids (one per fixture, so a whole
    corpus is one submission)."""
    from kgb.tasks.loader import load_suite

    suite = load_suite(tasks_dir)
    copies = tasks if isinstance(tasks, dict) else {t: t for t in tasks}
    for new_id, task_id in copies.items():
        task = suite[task_id]
        target = folder / task.category / new_id.split(".", 1)[1]
        target.mkdir(parents=True)
        for name in ("inputs.py", "reference.py", "solution.py"):
            (target / name).write_text((task.folder / name).read_text())
        keep = [s.name for s in task.shapes if not s.gpu_only][:shapes] + \
            [s.name for s in task.shapes if s.gpu_only][:gpu_shapes]
        text = (task.folder / "task.toml").read_text()
        blocks = re.split(r"(?=^\[)", text, flags=re.M)  # at every table header
        kept = [b for b in blocks if not b.startswith("[[shapes]]")
                or _shape_name(b) in keep]
        text = "".join(kept)
        text = re.sub(r"^dtypes = \[.*\]$", f'dtypes = ["{task.dtypes[0]}"]', text, flags=re.M)
        text = re.sub(r'^id = ".*"$', f'id = "{new_id}"', text, count=1, flags=re.M)
        (target / "task.toml").write_text(text)
    return folder


def copy_id(fixture: Fixture) -> str:
    """The id of the fixture's own copy of its task."""
    return f"{fixture.task}--{fixture.path.stem}"


def _shape_name(block: str) -> str | None:
    m = re.search(r'^name = "(.*)"$', block, re.M)
    return m.group(1) if m else None


def verify_kernels(kernels: dict[str, str], suite: Path, out: Path, *, device: str,
                   sandbox: str, static: bool, jobs: int = 1,
                   baselines: str = "all", timing: bool = True) -> dict[str, dict]:
    """One `kgb verify` of {task id: kernel source}: the report's jobs by task id."""
    from kgb.runner.verify import VerifyOptions, run_verify

    sub = write_submission(out.with_name(out.name + "-submission"), kernels, name=out.name)
    report = run_verify(VerifyOptions(submission=sub, tasks_dir=suite, out_dir=out,
                                      device=device, sandbox=sandbox, static=static, jobs=jobs,
                                      baselines=baselines, timing=timing,
                                      only=tuple(kernels)), quiet=True)
    assert report["environment"]["static_layer"] == ("on" if static else "off")
    return {job["task"]: job for job in report["jobs"]}


def run_corpus(fixtures: list[Fixture], out: Path, *, device: str, sandbox: str,
               static: bool, jobs: int = 1, shapes: int = 2, gpu_shapes: int = 0,
               honest: bool = True, baselines: str = "all",
               timing: bool = True) -> list[dict]:
    """Every fixture on its own copy of its task, in one run (and, with `honest`, the tasks'
    own solutions in another): one row per kernel, `ok` when it ended as it must."""
    copies = {copy_id(f): f.task for f in fixtures}
    tasks = sorted(set(copies.values()))
    suite = trimmed_suite(out / "suite", {**copies, **{t: t for t in tasks}}, shapes, gpu_shapes)
    rows = []
    if honest:
        sources = {t: next(suite.glob(f"*/{t.split('.', 1)[1]}/solution.py")).read_text()
                   for t in tasks}
        for task, job in verify_kernels(sources, suite, out / "honest", device=device,
                                        sandbox=sandbox, static=static, jobs=jobs,
                                        baselines=baselines, timing=timing).items():
            rows.append(dict(kernel=f"solution of {task}", expect="passed", threats=[],
                             verdict=job["verdict"], rule=job.get("rule"),
                             message=job.get("message") or "", ok=job["verdict"] == "passed"))
    sources = {copy_id(f): f.path.read_text() for f in fixtures}
    judged = verify_kernels(sources, suite, out / "cheats", device=device, sandbox=sandbox,
                            static=static, jobs=jobs, baselines=baselines, timing=timing)
    for fixture in fixtures:
        job = judged[copy_id(fixture)]
        rows.append(dict(kernel=fixture.name, expect="|".join(fixture.expect),
                         threats=list(fixture.threats), verdict=job["verdict"],
                         rule=job.get("rule"), message=job.get("message") or "",
                         ok=caught(fixture, job)))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgb.suite.corpus")
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--static", choices=["on", "off"], default="off")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--shapes", type=int, default=2, help="CPU shapes kept per task")
    parser.add_argument("--gpu-shapes", type=int, default=1, help="GPU shapes kept per task")
    # The verdicts need no baselines (the judge's empty loop, which D304 subtracts, is timed
    # whatever this says); torch.compile's doubles a GPU job's time.
    parser.add_argument("--baselines", choices=["all", "eager", "none"], default="all")
    # GPU: off checks layers 2-3 without the timing rules, several jobs per GPU (--jobs)
    parser.add_argument("--timing", choices=["on", "off"], default="on")
    args = parser.parse_args(argv)
    from kgb.errors import KgbError

    if args.out.exists() and any(args.out.iterdir()):
        print(f"error: --out {args.out} is not empty; remove it or name a new folder",
              file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        rows = run_corpus(load(args.folders), args.out, device=args.device,
                          sandbox=args.sandbox, static=args.static == "on", jobs=args.jobs,
                          shapes=args.shapes, gpu_shapes=args.gpu_shapes,
                          baselines=args.baselines, timing=args.timing == "on")
    except KgbError as exc:  # bad options, an interrupted run: one line, the documented code
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    for row in rows:
        print(f"{'ok ' if row['ok'] else 'BAD'} {row['kernel']}: {row['verdict']} "
              f"{row['rule'] or ''} (expected {row['expect']}) {row['message'][:160]}")
    (args.out / "corpus.json").write_text(json.dumps(rows, indent=1))
    bad = sum(not r["ok"] for r in rows)
    print(f"{len(rows) - bad} of {len(rows)} as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
