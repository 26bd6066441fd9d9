"""Batches (design.md, "Scale and throughput"; issue 24): `kgb verify A B C` verifies many
submissions in one run — a folder and report per submission, one summary, one seed, one
reference cache — and a bad member is a row with its reason, not the end of the batch."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, run_kgb, write_submission

pytestmark = pytest.mark.slow

FALLBACK = (ROOT / "tasks/Math/addcmul/solution.py").read_text().replace(
    "def run(", "def _unused(", 1) + \
    "\n\ndef run(x, t1, t2):\n    return torch.addcmul(x, t1, t2)\n"


def test_a_batch_verifies_each_submission_with_one_seed_and_one_reference_cache(tmp_path):
    subs = tmp_path / "subs"
    write_submission(subs / "honest", {"math.addcmul": (ROOT / "tasks/Math/addcmul/solution.py")
                                       .read_text()}, name="honest")
    write_submission(subs / "fallback", {"math.addcmul": FALLBACK}, name="fallback")
    (subs / "broken.tar").write_text("not a tar")
    out = tmp_path / "out"
    done = run_kgb("verify", subs, "--out", out, "--device", "cpu", "--sandbox", "process",
                   "--only", "math.addcmul", "--jobs", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    rows = {r["name"]: r for r in summary["submissions"]}
    assert list(rows) == ["broken", "fallback", "honest"]  # a folder's members in name order
    assert rows["honest"]["correct"] == 1 and rows["fallback"]["correct"] == 0
    assert "not a .tar" in rows["broken"]["error"] and summary["complete"]
    reports = {n: json.loads((out / n / "report.json").read_text()) for n in ("honest",
                                                                             "fallback")}
    assert reports["fallback"]["jobs"][0]["verdict"] == "rejected"
    assert reports["honest"]["seed"] == reports["fallback"]["seed"] == summary["seed"]
    # Under `process` (isolation none) a candidate could read another member's references:
    # each member keeps its own cache, computed after its candidates ran.
    assert (out / "honest" / "refcache" / "math.addcmul").is_dir()
    assert not (out / "refcache").exists()
    assert "batch honest: correct 1/1" in done.stdout

    again = run_kgb("verify", subs / "honest", subs / "fallback", "--out", out, "--resume",
                    "--device", "cpu", "--sandbox", "process", "--only", "math.addcmul")
    assert again.returncode == 2 and "other submissions" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1


@pytest.mark.bwrap
def test_an_isolating_backend_shares_one_reference_cache(tmp_path):
    import shutil

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    subs = tmp_path / "subs"
    solution = (ROOT / "tasks/Math/addcmul/solution.py").read_text()
    write_submission(subs / "a", {"math.addcmul": solution}, name="a")
    write_submission(subs / "b", {"math.addcmul": solution}, name="b")
    out = tmp_path / "out"
    done = run_kgb("verify", subs / "a", subs / "b", "--out", out, "--device", "cpu",
                   "--sandbox", "bwrap", "--only", "math.addcmul", "--jobs", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads((out / "summary.json").read_text())["submissions"]
    assert [r["correct"] for r in rows] == [1, 1]
    assert (out / "refcache" / "math.addcmul").is_dir()  # one cache for both
    assert not (out / "a" / "refcache").exists() and not (out / "b" / "refcache").exists()
    # One board for every member's jobs: with two slots the two one-kernel submissions ran at
    # the same time (members in turn left one slot idle: a batch of one-kernel submissions on
    # 4 GPUs used one). A job's folder gets plan.json when it starts, exec.json when its
    # sandbox ends.
    spans = [((out / m / "jobs/math.addcmul/plan.json").stat().st_mtime,
              (out / m / "jobs/math.addcmul/exec.json").stat().st_mtime) for m in ("a", "b")]
    assert max(s for s, _ in spans) < min(e for _, e in spans), spans
