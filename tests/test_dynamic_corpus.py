"""Layers 2 and 3 stand alone: every cheat of the dynamic corpus (tests/fixtures/dynamic),
run with the static layer switched off (`--static off`), ends `rejected` by the rule its header
names or `incorrect` — never `passed` — while the tasks' honest solutions pass the same way.
A trimmed copy of the suite (two CPU shapes, one dtype) keeps the interpreter's time short."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, trimmed_suite, write_submission

pytestmark = pytest.mark.slow

CORPUS = sorted((ROOT / "tests" / "fixtures" / "dynamic").glob("*.py"))


def header(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()[:3]
    found = {}
    for line in lines:
        if m := re.match(r"# (expect|task): (\S+)$", line):
            found[m.group(1)] = m.group(2)
        elif m := re.match(r"# threats? ([\d, ]+):", line):
            found["threats"] = m.group(1)
    return found


def rounds(fixtures: list[Path]) -> list[dict[str, Path]]:
    """Submissions of at most one fixture per task."""
    out: list[dict[str, Path]] = []
    for path in fixtures:
        task = header(path)["task"]
        target = next((r for r in out if task not in r), None)
        if target is None:
            target = {}
            out.append(target)
        target[task] = path
    return out


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    tasks = {header(p)["task"] for p in CORPUS}
    return trimmed_suite(tmp_path_factory.mktemp("suite"), tasks)


def verify(tmp_path: Path, suite: Path, kernels: dict[str, str], name: str) -> dict[str, dict]:
    from kgb.runner.verify import VerifyOptions, run_verify

    sub = write_submission(tmp_path / f"sub-{name}", kernels, name=name)
    report = run_verify(VerifyOptions(submission=sub, tasks_dir=suite, out_dir=tmp_path / name,
                                      device="cpu", sandbox="process", static=False, jobs=2,
                                      only=tuple(kernels)), as_json=True)
    assert report["environment"]["static_layer"] == "off"
    return {job["task"]: job for job in report["jobs"]}


def test_every_fixture_names_its_outcome_and_threats():
    assert len(CORPUS) >= 18
    for path in CORPUS:
        h = header(path)
        assert {"expect", "task", "threats"} <= set(h), path.name
        assert h["expect"] == "incorrect" or re.fullmatch(r"D[23]\d\d", h["expect"]), path.name


def test_honest_solutions_pass_with_the_static_layer_off(tmp_path, suite):
    tasks = {header(p)["task"] for p in CORPUS}
    kernels = {t: next(suite.glob(f"*/{t.split('.')[1]}/solution.py")).read_text()
               for t in tasks}
    jobs = verify(tmp_path, suite, kernels, "honest")
    assert {t: j["verdict"] for t, j in jobs.items()} == {t: "passed" for t in tasks}, {
        t: j["message"] for t, j in jobs.items()}


@pytest.mark.parametrize("batch", range(14))
def test_cheats_are_caught_by_layers_2_and_3_alone(tmp_path, suite, batch):
    batches = rounds(CORPUS)
    if batch >= len(batches):
        pytest.skip("no fixtures left for this batch")
    chosen = batches[batch]
    jobs = verify(tmp_path, suite, {t: p.read_text() for t, p in chosen.items()}, f"b{batch}")
    for task, path in chosen.items():
        expect, job = header(path)["expect"], jobs[task]
        got = job["verdict"] if expect == "incorrect" else (job["verdict"], job["rule"])
        want = "incorrect" if expect == "incorrect" else ("rejected", expect)
        assert got == want, f"{path.name}: {job['verdict']} {job['rule']} {job['message']}"
