"""Untrusted text is printed as text: markup in kernel messages, submission names or rule texts
cannot crash kgb or restyle its output, and control characters cannot repaint the terminal."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import ROOT, build_real_report, run_kgb, write_submission

HOSTILE = "[/bogus] [green]passed[/green] \x1b[2K\x1b[1A\rpassed \u202eevil"


def test_a_hostile_report_renders_literally(tmp_path):
    path = build_real_report(tmp_path / "run", [("k.a", "crashed", None), ("k.b", "passed", 2.0)])
    report = json.loads(path.read_text())
    report["jobs"][0]["message"] = HOSTILE
    report["jobs"][0]["location"] = "[bold]x.py:1"
    report["submission"]["name"] = "[red]name"
    path.write_text(json.dumps(report))
    done = run_kgb("report", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "[/bogus] [green]passed[/green]" in out and "[red]name" in out and "[bold]x.py:1" in out
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out
    assert "\\x1b[2K" in out and "\\r" in out


def test_rule_texts_and_task_ids_keep_their_brackets_and_are_never_cut():
    rules = run_kgb("rules")
    assert rules.returncode == 0 and "kernel[grid](...)" in rules.stdout
    listing = run_kgb("tasks", "list")  # stdout is a pipe here, as in `kgb tasks list | cat`
    assert listing.returncode == 0
    from kgb.tasks.loader import load_suite

    for task_id in load_suite(ROOT / "tasks"):
        assert task_id in listing.stdout, task_id


@pytest.mark.slow
def test_a_kernel_raising_markup_and_escapes_gets_its_verdict(tmp_path):
    source = (ROOT / "tasks/Math/addcmul/solution.py").read_text().replace("def run(",
                                                                            "def _honest(")
    source += textwrap.dedent(f"""

        def run(x, t1, t2):
            _honest(x, t1, t2)
            raise RuntimeError({HOSTILE!r})
        """)
    sub = write_submission(tmp_path / "sub", {"math.addcmul": source})
    done = run_kgb("verify", sub, "--device", "cpu", "--sandbox", "process", "--out",
                   tmp_path / "out", "--only", "math.addcmul")
    assert done.returncode == 0, done.stderr[-1500:]
    assert "crashed" in done.stdout and "[/bogus]" in done.stdout
    assert "\x1b" not in done.stdout
