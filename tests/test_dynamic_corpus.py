"""Layers 2 and 3 stand alone: every cheat of the dynamic corpus (tests/fixtures/dynamic),
run with the static layer switched off (`--static off`), ends `rejected` by a rule its header
names or `incorrect` — never `passed` — while the tasks' honest solutions pass the same way.
Each fixture runs on its own copy of its task, in a trimmed suite (two CPU shapes, one dtype)
that keeps the interpreter's time short; the GPU proof runs the same corpus with
`python -m kgb.suite.corpus ... --device cuda` (scripts/gpu/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT
from kgb.suite.corpus import Fixture, load, run_corpus

pytestmark = pytest.mark.slow

CORPUS = load([ROOT / "tests" / "fixtures" / "dynamic"])


def test_every_fixture_names_its_outcome_and_threats():
    assert len(CORPUS) >= 18  # load() refused any header without task, expect and threats
    # An honest twin (`expect: passed`, no threat) guards a class against false positives.
    assert all(f.expect and (f.threats or f.expect == ("passed",)) for f in CORPUS)
    assert sum(bool(f.threats) for f in CORPUS) >= 18


def _solutions(fixtures: list[Fixture], folder: Path) -> list[Fixture]:
    """The attacked tasks' own solutions as honest fixtures (`passed`, no threat), copied to
    `folder` as TASK_ID.py: each on a copy of its task beside the cheats, in the same run —
    run_corpus's `honest` ran them in a second `kgb verify` of their own."""
    from kgb.tasks.loader import load_suite

    suite = load_suite(ROOT / "tasks")
    folder.mkdir()
    solutions = []
    for task in sorted({f.task for f in fixtures}):
        path = folder / f"{task}.py"
        path.write_text((suite[task].folder / "solution.py").read_text())
        solutions.append(Fixture(path, task, ("passed",), ()))
    return solutions


def test_cheats_are_caught_by_layers_2_and_3_alone(tmp_path):
    solutions = _solutions(CORPUS, tmp_path / "solutions")
    rows = run_corpus(CORPUS + solutions, tmp_path, device="cpu", sandbox="process",
                      static=False, jobs=2, honest=False)
    wrong = [f"{r['kernel']}: {r['verdict']} {r['rule']} (expected {r['expect']}) "
             f"{r['message'][:200]}" for r in rows if not r["ok"]]
    assert not wrong, "\n".join(wrong)
    assert len(rows) == len(CORPUS) + len(solutions) >= len(CORPUS) + 5  # solutions ran too
