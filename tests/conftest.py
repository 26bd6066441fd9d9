from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from kgb.suite.corpus import trimmed_suite, write_submission  # noqa: F401 - shared by tests

ROOT = Path(__file__).resolve().parent.parent

# `make test` runs two pytest-xdist workers (`-n 2 --dist loadgroup --no-loadscope-reorder`,
# the Makefile): the machine has two cores and most tests keep one busy. A fixture shared
# wider than one test is built once per worker that runs a test using it, so every test that
# shares one is sent to one worker (pytest_collection_modifyitems below): a session run of
# this file's (SHARED_RUNS) and any module- or class-scoped fixture tie their tests into one
# group; a test that shares nothing goes to whichever worker is free.
SHARED_RUNS = frozenset({"broken_run", "addcmul_run"})

# The slowest groups first (measured: docs/decisions.md, "`make test` on two workers"), so the
# two workers end together instead of one starting a 3-minute test at the end; the rest keep
# pytest's order. A prefix of a test id; a group goes where its first test goes.
SLOW_FIRST = (
    "tests/test_dynamic_corpus.py",
    "tests/test_examples.py::test_honest_example",
    "tests/test_examples.py::test_broken",
    "tests/test_sandbox.py::test_hostile_kernels",
    "tests/test_kernelbench.py",
    "tests/test_suite_quality.py",
    "tests/test_jit_globals.py",
    "tests/test_sandbox.py",
    "tests/test_api.py",
    "tests/test_serve.py",
)


@pytest.fixture(autouse=True, scope="session")
def _private_config(tmp_path_factory):
    """kgb's per-user store (kgb.tasks.known_folders) in a folder of the test session's
    own, for the tests and every kgb they start, never the user's ~/.config."""
    import os

    os.environ["XDG_CONFIG_HOME"] = str(tmp_path_factory.mktemp("xdg-config"))
    yield


def run_kgb(*args: str, timeout: float = 900, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess: real exit codes, real stderr."""
    return subprocess.run([sys.executable, "-m", "kgb.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd or ROOT)


@pytest.fixture
def kgb():
    return run_kgb


@pytest.fixture(scope="session")
def addcmul_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """One passed kernel (the honest example's math.addcmul) under a gate, with --feedback
    and the example prices: tests/test_cli_options.py reads its output and report, and
    tests/test_judge_pool.py judges copies of its job folder (each ran its own before)."""
    out = tmp_path_factory.mktemp("addcmul-run") / "out"
    done = run_kgb("verify", "examples/honest", "--device", "cpu", "--sandbox", "process",
                   "--only", "math.addcmul", "--out", out, "--fail-under", "correct=0.9",
                   "--feedback", "--pricing", ROOT / "examples" / "pricing.example.toml")
    return out, done


@dataclass(frozen=True)
class BrokenRun:
    proc: subprocess.CompletedProcess
    out: Path


@pytest.fixture(scope="session")
def broken_run(tmp_path_factory) -> BrokenRun:
    """`make demo-broken`'s run, once per session, beside two busy loops: the README's broken
    example (tests/test_examples.py), its regrade (tests/test_regrade.py) and the local side of
    the Ray comparison (tests/test_ray.py) all read this one run — each ran its own before (four
    runs of the same kernels). Under load, because a verdict must not depend on it (issue 28):
    the hanging kernel must end `timeout` and the wrong ones `incorrect`. `--warm on` prepares
    jobs 3 and 4 ahead in threads that end before their turn: the path on which the hang once
    came back `crashed` (a parent-death signal bound to the preparing thread killed it)."""
    out = tmp_path_factory.mktemp("broken-run") / "out"
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        proc = run_kgb("verify", "examples/broken", "--device", "cpu", "--sandbox", "process",
                       "--timeout", "20", "--jobs", "2", "--warm", "on", "--out", out)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return BrokenRun(proc, out)


def build_real_report(folder: Path, jobs: list[tuple[str, str, float | None]],
                      manifest_tasks: list[str] | None = None,
                      tokens: dict | None = None) -> Path:
    """A report.json written by kgb's own report builder (not by hand), for jobs given as
    (task id, verdict, speedup vs eager or None): what `kgb cost --report` reads in real life.
    The speedups stand in for timings until a run measures them."""
    from kgb import protocol as P
    from kgb.report.json_report import build_report, job_entry, write_report

    entries = []
    for task, verdict, speedup in jobs:
        plan = P.PlanRecord(task, "Math", f"kernels/{task}.py", "cuda:0", 60.0, ())
        record = P.JobRecord(P.VerdictRecord(P.Verdict(verdict)),
                             P.JobFacts(f"jobs/{task}", "cuda:0", speedup_eager=speedup,
                                        time_ms=1.0 if speedup else None))
        entries.append(job_entry(plan, record))
    header = {"environment": {"device_name": "test"}, "limits": {}, "seed": 1,
              "submission": {"name": "t"}}
    if manifest_tasks is not None:
        header["manifest"] = {"tasks": manifest_tasks, "tokens": tokens}
    folder.mkdir(parents=True, exist_ok=True)
    return write_report(build_report(header, entries, complete=True), folder)




def _shared_keys(item: pytest.Item) -> set[str]:
    """What `item` shares with other tests: SHARED_RUNS it uses and the module or class of
    each module-, class- or package-scoped fixture it uses (those are built once there)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    keys = {name for name in info.names_closure if name in SHARED_RUNS}
    for name, defs in info.name2fixturedefs.items():
        if name in SHARED_RUNS or not defs:
            continue
        scope = defs[-1].scope
        if scope in ("module", "class", "package"):
            keys.add(f"{item.path.name}:{scope}:{name}")  # type: ignore[attr-defined]
    return keys


def _groups(items: list[pytest.Item]) -> dict[int, str]:
    """Index of each item that shares a fixture -> its group's name: items that share any
    key are one group (union-find over the keys)."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    keys = [sorted(_shared_keys(item)) for item in items]
    for item_keys in keys:
        for other in item_keys[1:]:
            parent[find(other)] = find(item_keys[0])
    return {i: find(k[0]).replace(":", "-") for i, k in enumerate(keys) if k}


def _rank(nodeid: str) -> int:
    return next((i for i, prefix in enumerate(SLOW_FIRST) if nodeid.startswith(prefix)),
                len(SLOW_FIRST))


def _join_group(item: pytest.Item, group: str) -> None:
    """What pytest-xdist's `--dist loadgroup` does for an `xdist_group` mark: the test id gets
    `@group`, and the scheduler sends the ids with one suffix to one worker. Done here because
    xdist 3.8 writes `item._nodeid`, which pytest 9.2 no longer reads (ids are `item._id`), so
    its marks group nothing there (seen: one module fixture built in both workers)."""
    nodeid = f"{item.nodeid}@{group}"
    if hasattr(item, "_nodeid"):  # pytest before 9.2
        item._nodeid = nodeid
    else:
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(nodeid)  # type: ignore[attr-defined]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    groups = _groups(items)
    first: dict[str, int] = {}  # a group's rank: its slowest member's
    for i, item in enumerate(items):
        if i in groups:
            group = groups[i]
            first[group] = min(first.get(group, len(SLOW_FIRST)), _rank(item.nodeid))
    order = {id(item): (first[groups[i]] if i in groups else _rank(item.nodeid), i)
             for i, item in enumerate(items)}
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        for i, item in enumerate(items):
            if i in groups:
                _join_group(item, groups[i])
    items.sort(key=lambda item: order[id(item)])
