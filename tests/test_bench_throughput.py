"""scripts/bench_throughput.py's batch (no GPU, no kgb run: the benchmark itself runs on the
lent GPU): the committed files are what make_batch.py writes, and the benchmark finds 33 kernels
on 9 tasks in them, each with its problem — a renamed file would silently shrink the batch."""

from __future__ import annotations

import json
import filecmp
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_committed_batch_is_what_make_batch_writes(tmp_path):
    make = _load("make_batch", ROOT / "scripts" / "kernelbench" / "make_batch.py")
    make.main(tmp_path / "batch")
    committed = ROOT / "scripts" / "kernelbench" / "batch"
    for path in sorted((tmp_path / "batch").rglob("*.*")):
        twin = committed / path.relative_to(tmp_path / "batch")
        assert twin.is_file() and filecmp.cmp(path, twin, shallow=False), twin


def test_the_benchmark_finds_33_kernels_on_9_tasks_with_their_problems(tmp_path):
    bench = _load("bench_throughput", ROOT / "scripts" / "bench_throughput.py")
    kernels = bench.kernels_of(4, None)
    assert len(kernels) == 33 and len({k["task"] for k in kernels}) == 9
    assert all(Path(k["problem"]).is_file() and Path(k["kernel"]).is_file() for k in kernels)
    assert {"activation.kb_1_gelu_large", "normalization.kb_2_softmax_wide"} <= \
        {k["task"] for k in kernels}  # the KernelBench kit's two problems
    subs = bench.write_submissions(bench.kernels_of(2, {"reduce.kb_5_sum_rows"}), tmp_path / "s")
    assert [s.name for s in subs] == ["v0", "v1"]
    assert 'task = "reduce.kb_5_sum_rows"' in (subs[1] / "manifest.toml").read_text()
    assert (subs[1] / "kernels" / "sum_rows.py").read_text() != \
        (subs[0] / "kernels" / "sum_rows.py").read_text()


def test_the_judge_pools_notes_are_counted(tmp_path):
    """The bench counts the judge pool's own lines (judges started ahead or at need, retired
    by reason) across the run's folders, and nothing else of judges.log."""
    bench = _load("bench_throughput", ROOT / "scripts" / "bench_throughput.py")
    member = tmp_path / "v0"
    member.mkdir()
    (tmp_path / "judges.log").write_text(
        "kgb judges 0.1 s: judge 11 on cuda:0 started ahead\n"
        "Traceback (most recent call last): a reference's stderr, not the pool's\n"
        "kgb judges 3.2 s: judge 12 on cuda:0 started at need (none idle)\n"
        "kgb judges 9.0 s: judge 11 on cuda:0 retired after 3 job(s): its canary failed\n")
    (member / "judges.log").write_text(
        "kgb judges 4.0 s: judge 13 on cuda:1 started at need (none idle)\n")
    assert bench.judge_notes([tmp_path, member]) == {
        "retired: its canary failed": 1, "started ahead": 1, "started at need": 2}


def test_the_timing_locks_account_is_read_from_what_the_run_writes(tmp_path):
    """The bench's lock figures come from the run's own timing_lock.json (Shares.summary):
    seconds held by jobs and by judges, over every shared GPU, and nothing when absent."""
    import time

    from kgb.runner.gpu_share import Shares

    bench = _load("bench_throughput", ROOT / "scripts" / "bench_throughput.py")
    assert bench.lock_held(tmp_path) == {}
    shares = Shares.for_slots(("cpu:0", "cpu:0", "cpu:1", "cpu:1"))
    for device, holder in (("cpu:0", "job a"), ("cpu:1", "judge t"), ("cpu:1", "job b")):
        share = shares.get(device)
        tenant = share.join(holder, None)
        assert share.acquire(tenant, 10.0) is True
        time.sleep(0.05)
        share.leave(tenant)
    for member in ("v0", "v1"):  # each member's report folder holds the run's locks
        (tmp_path / member).mkdir()
        (tmp_path / member / "timing_lock.json").write_text(json.dumps(shares.summary()))
    lock = bench.lock_held(tmp_path)
    assert lock["windows"] == 3
    assert 0.1 <= lock["held_s"] < 1.0 and 0.05 <= lock["judge_held_s"] < 0.5
    assert lock["back_to_back"] == 0  # each released with no one waiting


def test_the_bench_counts_grants_that_came_back_to_back(tmp_path):
    """From timing_lock.json's timeline: the grants made while the others were kept frozen
    for a waiting holder, and their drains."""
    bench = _load("bench_throughput", ROOT / "scripts" / "bench_throughput.py")
    columns = ["holder", "asked", "granted", "ended", "freeze_s", "drain_s",
               "waiting_at_release"]
    timeline = [["job", 0.0, 0.3, 0.5, 0.05, 0.25, 1], ["job", 0.2, 0.8, 1.0, 0.01, 0.2, 0],
                ["judge", 1.5, 1.9, 2.0, 0.05, 0.3, 0]]
    (tmp_path / "v0").mkdir()
    (tmp_path / "v0" / "timing_lock.json").write_text(json.dumps({"cuda:0": {
        "windows": 3, "by_holder": {}, "timeline_columns": columns, "timeline": timeline}}))
    lock = bench.lock_held(tmp_path)
    assert (lock["back_to_back"], lock["back_to_back_drain_s"]) == (1, 0.2)


def test_the_runs_edges_come_from_its_job_files_times(tmp_path):
    """Start-up before the first job (its plan.json) and the tail after the last (its
    phases.json), from the files' times; nothing when the run left no job folder."""
    import os

    bench = _load("bench_throughput", ROOT / "scripts" / "bench_throughput.py")
    assert bench.run_edges(tmp_path, 0.0, 1.0) == {}
    for name, plan_at, done_at in (("a", 105.0, 120.0), ("b", 103.0, 130.0)):
        job = tmp_path / "v0" / "jobs" / name
        job.mkdir(parents=True)
        for file, at in (("plan.json", plan_at), ("phases.json", done_at)):
            (job / file).write_text("{}")
            os.utime(job / file, (at, at))
    assert bench.run_edges(tmp_path, 100.0, 134.5) == {"start_s": 3.0, "jobs_s": 27.0,
                                                       "tail_s": 4.5}


def test_the_hosts_own_marks_come_from_the_newest_timeline(tmp_path):
    """host_marks: the members' host_timeline.json files grow as the batch writes them; the
    longest holds every mark; first open, last opened, first worker, last written."""
    bench = _load("bench_throughput", ROOT / "scripts" / "bench_throughput.py")
    assert bench.host_marks(tmp_path) == {}
    early = [{"mark": "open", "s": 1.0}, {"mark": "opened", "s": 1.5},
             {"mark": "written", "s": 9.0}]
    full = early[:2] + [{"mark": "open", "s": 1.6}, {"mark": "opened", "s": 2.5},
                        {"mark": "first worker released", "s": 3.25},
                        {"mark": "written", "s": 9.0}, {"mark": "written", "s": 9.5}]
    for name, marks in (("a", early), ("b", full)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "host_timeline.json").write_text(json.dumps(marks))
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "host_timeline.json").write_text("not json")
    assert bench.host_marks(tmp_path) == {"first_open_s": 1.0, "last_opened_s": 2.5,
                                          "first_worker_s": 3.25, "written_s": 9.5}
