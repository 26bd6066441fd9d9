"""Where a Ray job's time goes, without a cluster: the host records each job's seconds on the
actor and its own (report.json's `ray` section), its phases.json counts the job's own time as a
local job's does (less the wait for its actor's previous job), and scripts/ray_jobs.py turns a
run's folder into the one-file per-job table scripts/gpu/ray_scale.sh brings back."""

from __future__ import annotations

import importlib.util
import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace

from kgb import protocol as P
from kgb.placement.ray_host import RayPlacement
from kgb.placement.ray_slot import Answer

ROOT = Path(__file__).resolve().parent.parent


def _placement() -> RayPlacement:
    place = RayPlacement.__new__(RayPlacement)  # no cluster: the host's bookkeeping alone
    place.address, place.slots, place._cond = "local", ("cpu",), threading.Condition()
    place.retried, place.job_seconds, place.start_seconds = {}, {}, {"actors_ready": 1.0}
    return place


def test_the_host_keeps_each_jobs_seconds_and_counts_its_time_less_the_wait(tmp_path,
                                                                           monkeypatch):
    import kgb.runner.grade as grade
    import kgb.runner.journal as journal

    monkeypatch.setattr(grade, "grade", lambda job_dir, out_dir: "record")
    monkeypatch.setattr(journal, "write_finished", lambda job_dir, record: None)
    place = _placement()
    node = P.HostPhases(0.1, 2.0, 0.5, 0.01, 2.6, waited_for_slot_s=5.0)  # prepared ahead
    answer = Answer({P.PHASES_FILE: json.dumps(P.to_json(node)).encode()}, (), "n", "ip",
                    "cpu", "kgb-slot-0", {"lock_wait": 5.0, "finish": 2.6})
    for run in ("r1", "r2"):
        ctx = SimpleNamespace(out_dir=tmp_path / run, run_id=run)
        job = SimpleNamespace(task=SimpleNamespace(id="math.addcmul"))
        started = time.monotonic() - 8.0  # sent 8 s ago: 5 s waiting, 3 s its own
        place.job_seconds[(run, "math.addcmul")] = {"round_trip": 8.0}  # as run() records
        assert place._finish(job, ctx, answer, (), started) == "record"
    host = P.read(P.HostPhases, tmp_path / "r1" / "jobs" / "math.addcmul" / P.PHASES_FILE,
                  1 << 16)
    assert 2.9 < host.total_s < 4.0, host  # was 8 s: the actor's wait counted as the job's
    assert host.waited_for_slot_s == 5.0
    ray = place.summary("r1")
    assert list(ray["jobs"]) == ["math.addcmul"] and ray["run"] == {"actors_ready": 1.0}
    seconds = ray["jobs"]["math.addcmul"]
    assert seconds["lock_wait"] == 5.0 and seconds["round_trip"] == 8.0
    assert seconds["unpack"] >= 0.0 and seconds["answer_kb"] > 0
    assert len(place.summary()["jobs"]) == 1 and len(place.job_seconds) == 2  # one per run


def _table_script():
    spec = importlib.util.spec_from_file_location("ray_jobs", ROOT / "scripts" / "ray_jobs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _job(run: Path, task: str, actor: str | None, finish: float) -> None:
    job = run / "jobs" / task
    job.mkdir(parents=True)
    (job / P.PHASES_FILE).write_text(json.dumps(P.to_json(P.HostPhases(
        0.1, finish - 0.5, 0.4, 0.01, finish, 1.5))))
    (job / P.EXEC_FILE).write_text(json.dumps({"worker_s": finish - 0.7, "startup_s": 1.2}))
    (job / P.JUDGE_FILE).write_text(json.dumps({"phases": [
        {"name": "cases:primary", "seconds": 0.25}, {"name": "baselines", "seconds": 3.0}]}))
    (job / "plan.json").write_text(json.dumps({"slot": "cuda:0"}))
    if actor is not None:
        (job / P.PLACEMENT_FILE).write_text(json.dumps(
            {"node": "n", "node_ip": "10.0.0.1", "slot": "cuda:1", "actor": actor,
             "retries": [{"node": "m", "slot": "cuda:2", "reason": "lost"}]}))
        (run / "report.json").write_text(json.dumps({"ray": {
            "run": {"actors_ready": 9.5}, "jobs": {task: {"finish": finish, "pack": 0.02}}}}))


def test_the_per_job_table_reads_a_batchs_folders_into_one_file(tmp_path, capsys, monkeypatch):
    table = _table_script()
    _job(tmp_path / "c0-math.addcmul", "math.addcmul", "kgb-slot-0", 4.0)
    _job(tmp_path / "c1-math.addcmul", "math.addcmul", "kgb-slot-0", 6.0)
    (tmp_path / "refcache").mkdir()  # a batch's other folders are no runs
    rows = table.rows(tmp_path)
    assert [r["submission"] for r in rows] == ["c0-math.addcmul", "c1-math.addcmul"]
    first = rows[0]
    assert (first["node"], first["slot"], first["retried"]) == ("10.0.0.1/kgb-slot-0",
                                                                "cuda:1", 1)
    assert (first["wall"], first["waited"], first["ref"], first["finish"]) == (4.0, 1.5, 0.25,
                                                                               4.0)
    assert table.busy_by_node(rows) == {"10.0.0.1/kgb-slot-0": (2, 10.0)}
    out = tmp_path / "jobs.tsv"
    monkeypatch.setattr("sys.argv", ["ray_jobs.py", str(tmp_path), "--tsv", str(out)])
    assert table.main() == 0
    text = out.read_text()
    assert text == capsys.readouterr().out
    assert len([ln for ln in text.splitlines() if not ln.startswith("#")]) == 3  # header + 2
    assert "# 10.0.0.1/kgb-slot-0: 2 jobs, busy 10.0 s" in text
    assert '"actors_ready": 9.5' in text


def test_each_job_has_its_place_on_the_runs_clock_and_the_table_shows_idle_places():
    """Run 22 (4 x H100): the batch's 64 jobs kept 4 GPUs x 4 places 74 % busy (one GPU's 4
    places: 86 %), and nothing said where the rest went. The host stamps each job's send and
    answer on the run's clock; scripts/ray_jobs.py's timeline gives the start, the last job
    handed out, the last answer and the occupancy."""
    place = _placement()
    place._born = time.monotonic() - 10.0  # the run connected 10 s ago
    place._take = lambda cancel, task_id: "actor"
    place._submit = lambda actor, job, ctx: "ref"
    place._wait = lambda ref, actor, ctx, task_id: (time.sleep(0.05),
                                                    Answer({}, (), "n", "ip", "cpu", "a"))[1]
    place._give_back = lambda actor: None
    place._finish = lambda job, ctx, answer, retries, started: "record"
    ctx = SimpleNamespace(run_id="r1", cancel=threading.Event())
    job = SimpleNamespace(task=SimpleNamespace(id="math.addcmul"))
    assert place.run(job, ctx) == "record"
    seconds = place.job_seconds[("r1", "math.addcmul")]
    assert 10.0 <= seconds["sent_at"] < seconds["answered_at"] < 11.0
    assert seconds["answered_at"] - seconds["sent_at"] >= 0.05

    table = _table_script()
    jobs = [{"sent_at": 5.0, "answered_at": 45.0}, {"sent_at": 5.0, "answered_at": 25.0},
            {"sent_at": 25.0, "answered_at": 45.0}, {"sent_at": 45.0, "answered_at": 85.0}]
    times = table.timeline(jobs, places=2)
    assert times == {"first_sent": 5.0, "last_sent": 45.0, "last_answered": 85.0,
                     "occupancy": 0.75}  # 120 job-seconds in 2 x 80: one place idle 40 s
    assert table.timeline([{"sent_at": None, "answered_at": None}], 2) is None
