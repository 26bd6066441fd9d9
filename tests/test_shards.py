"""Shards (kgb.runner.shards): a task's cases run as several jobs on slots that would sit idle,
graded once over the union of their records — the verdict an unsharded job would get.

One sharded run (math.addcmul, `--jobs 2 --shard-cases on`) is compared with the session's
unsharded run of the same kernel (conftest.addcmul_run); the merge's precedence (a wrong case,
a crash, a timeout, a tampered result, a failed judge in one shard) is checked on copies of
that run's real shard folders, each changed as the failing shard would have left it."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
from conftest import run_kgb

from kgb import protocol as P
from kgb.runner.shards import merge_shards, shard_counts, split_cases
from kgb.sandbox.base import Limits

TASK = "math.addcmul"


# ------------------------------------------------------------------ the split policy (pure)
def test_an_idle_slot_takes_a_shard_of_a_long_job_only_where_it_saves_a_start_up():
    assert shard_counts([20.0], [18], slots=2) == [2]  # `on`: no start-up to beat
    assert shard_counts([20.0], [18], slots=2, startup_s=6.0) == [2]  # saves 10 s > 6 s
    assert shard_counts([10.0], [18], slots=2, startup_s=6.0) == [1]  # saves 5 s < 6 s
    assert shard_counts([100.0], [18], slots=4, startup_s=6.0) == [4]
    assert shard_counts([20.0], [18], slots=1) == [1]  # one slot: nothing idles


def test_shards_hold_a_minimum_of_cases_and_never_outnumber_the_slots():
    assert shard_counts([100.0], [3], slots=4) == [1]  # 3 cases: no two shards of 2
    assert shard_counts([100.0], [5], slots=4) == [2]
    assert shard_counts([100.0], [40], slots=3) == [3]


def test_busy_slots_split_only_a_job_that_would_hold_the_run_s_tail():
    assert shard_counts([10.0, 1.0, 1.0], [20, 20, 20], slots=2) == [2, 1, 1]
    assert shard_counts([10.0, 10.0, 1.0], [20, 20, 20], slots=2) == [1, 1, 1]
    # a task without a kernel (0 s) neither counts as busy nor is split
    assert shard_counts([0.0, 20.0], [20, 20], slots=2) == [1, 2]


def test_split_cases_is_contiguous_balanced_and_complete():
    assert split_cases([1.0] * 10, 2) == [(0, 5), (5, 10)]
    assert split_cases([1.0] * 10, 3) == [(0, 4), (4, 7), (7, 10)]
    # one heavy first case: its shard still holds the minimum of two cases
    assert split_cases([10.0] + [1.0] * 9, 2) == [(0, 2), (2, 10)]
    # a heavy tail: the first shard takes the light cases
    ranges = split_cases([1.0] * 8 + [8.0, 8.0], 2)
    assert ranges == [(0, 9), (9, 10)] or ranges == [(0, 8), (8, 10)]
    for weights, n in (([1.0] * 7, 3), ([5.0, 1.0, 1.0, 1.0, 9.0], 2), ([0.0] * 6, 3)):
        ranges = split_cases(weights, n)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(weights)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
        assert all(end - start >= 2 for start, end in ranges)


def _matmul_job(tmp_path: Path, source: str, device: str = "cuda:0"):
    """A job of 8 shapes x 3 dtypes x (standard, outliers), as plan_cases orders them, for a
    kernel file with `source` (nothing of it runs)."""
    from types import SimpleNamespace

    from kgb.runner.plan import Job
    from kgb.tasks.model import Case, ShapeSpec

    kernel = tmp_path / f"k{len(list(tmp_path.glob('k*.py')))}.py"
    kernel.write_text(source)
    cases = tuple(Case(f"s{n}-{dtype}-{mode}", ShapeSpec(f"s{n}", (("M", 16 * (n + 1)),), ()),
                       dtype, mode, 1)
                  for n in range(8) for dtype in ("float32", "float16", "bfloat16")
                  for mode in ("standard", "outliers"))
    # FLOPs growing as M³, as a matmul's: the largest shapes' calls weigh the most
    task = SimpleNamespace(id="matmul.matmul", cost=lambda dims, dtype: (dims["M"] ** 3 * 1e6,
                                                                          0.0))
    return Job(task, SimpleNamespace(path=kernel), cases, device)


AUTOTUNED = """import triton
CONFIGS = [triton.Config({"BM": bm}) for bm in (16, 32)]
@triton.autotune(configs=CONFIGS, key=["M"])
@triton.jit
def k(x, M, BM: "tl.constexpr"):
    pass
"""


def test_an_autotuned_kernels_shards_hold_whole_keys(tmp_path):
    """Each (shape, dtype) is one autotune key, tuned once per job that holds a case of it:
    an autotuned kernel's shards are cut between shapes, about as many keys each, so no key
    is tuned twice; the cost model counts each key's tuning (an idle GPU takes a shard of
    such a job where its calls alone would not pay a worker's start-up). A kernel that does
    not autotune is cut by its cases' cost, wherever that falls."""
    from kgb.runner.shards import (
        AUTOTUNE_KEY_S,
        STARTUP_S,
        autotuned,
        job_seconds,
        shard_jobs,
    )

    job = _matmul_job(tmp_path, AUTOTUNED)
    assert autotuned(job)
    shards = shard_jobs(job, 2)
    assert [len(s.cases) for s in shards] == [24, 24]
    keys = [{(c.shape.name, c.dtype) for c in s.cases} for s in shards]
    assert len(keys[0]) == len(keys[1]) == 12 and not keys[0] & keys[1]
    assert [c for s in shards for c in s.cases] == list(job.cases)  # plan order kept
    three = shard_jobs(job, 3)
    assert all(len({c.shape.name for c in s.cases} & {c.shape.name for c in t.cases}) == 0
               for s, t in itertools.combinations(three, 2))
    # the job's seconds count 24 tunings: two GPUs' halves each save more than a start-up
    assert job_seconds(job) / 2 > STARTUP_S["cuda"]
    assert shard_counts([job_seconds(job)], [len(job.cases)], slots=2,
                        startup_s=STARTUP_S["cuda"]) == [2]
    plain = _matmul_job(tmp_path, AUTOTUNED.replace("@triton.autotune", "# @triton.autotune"))
    assert not autotuned(plain)
    assert job_seconds(job) - job_seconds(plain) == pytest.approx(24 * AUTOTUNE_KEY_S)
    cut = shard_jobs(plain, 2)  # by the calls' cost: the largest shapes alone
    assert len(cut[1].cases) < len(cut[0].cases)
    assert not autotuned(_matmul_job(tmp_path, "def k(:"))  # does not parse: not autotuned
    # one shape far heavier than the rest, more shards asked than boundaries left: no crash,
    # every case once, cuts between shapes only
    from dataclasses import replace

    from types import SimpleNamespace

    heavy = SimpleNamespace(id="matmul.matmul",
                            cost=lambda dims, dtype: (1e15 if dims["M"] == 128 else 0.0, 0.0))
    skewed = replace(job, task=heavy, cases=job.cases[:12] + job.cases[-6:])  # s0, s1, s7
    for count in (2, 3, 4):
        pieces = shard_jobs(skewed, count)
        assert [c for s in pieces for c in s.cases] == list(skewed.cases)
        assert all(s.cases[0].shape.name != t.cases[-1].shape.name
                   for t, s in itertools.pairwise(pieces))


# ------------------------------------------------------------------ one sharded run
@pytest.fixture(scope="module")
def sharded(tmp_path_factory, addcmul_run) -> Path:
    """The session's unsharded math.addcmul run again, with its seed, in two shards."""
    seed = json.loads((addcmul_run[0] / "report.json").read_text())["seed"]
    out = tmp_path_factory.mktemp("sharded") / "out"
    done = run_kgb("verify", "examples/honest", "--device", "cpu", "--sandbox", "process",
                   "--only", TASK, "--jobs", "2", "--shard-cases", "on", "--seed", seed,
                   "--out", out)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _entry(out: Path) -> dict:
    return next(j for j in json.loads((out / "report.json").read_text())["jobs"]
                if j["task"] == TASK)


@pytest.mark.slow
def test_sharded_and_unsharded_runs_give_the_same_verdict_and_case_records(sharded,
                                                                           addcmul_run):
    whole, split = _entry(addcmul_run[0]), _entry(sharded)
    assert whole["shards"] == [] and split["verdict"] == whole["verdict"] == "passed"
    assert split["message"] == whole["message"] and split["coverage"] == whole["coverage"]
    assert [(c["id"], c["status"]) for c in split["cases"]] == \
        [(c["id"], c["status"]) for c in whole["cases"]]
    assert split["log_dir"] == f"jobs/{TASK}" and split["unrun_shapes"] == whole["unrun_shapes"]
    # the report names the shards: every case once, in plan order, each in its own folder
    shards = split["shards"]
    assert len(shards) == 2 and [s["index"] for s in shards] == [1, 2]
    assert [c for s in shards for c in s["cases"]] == [c["id"] for c in whole["cases"]]
    assert all(len(s["cases"]) >= 2 and s["device"] == "cpu" for s in shards)
    assert [s["log_dir"] for s in shards] == [f"jobs/{TASK}/shard-1", f"jobs/{TASK}/shard-2"]


@pytest.mark.slow
def test_the_merged_folder_is_the_one_the_unsharded_job_left(sharded, addcmul_run):
    """Same seed: the merged plan is the unsharded job's, the judgement of every call and the
    worker's records (times apart) are the same, and so is the verdict record."""
    merged, whole = sharded / "jobs" / TASK, addcmul_run[0] / "jobs" / TASK

    def read(folder: Path, name: str):
        return json.loads((folder / name).read_text())

    def untimed(value):
        if isinstance(value, dict):
            return {k: untimed(v) for k, v in value.items()
                    if k not in ("wall_s", "compile_s", "late_check_s")}
        return [untimed(v) for v in value] if isinstance(value, list) else value

    assert read(merged, "plan.json") == read(whole, "plan.json")
    assert read(merged, P.JUDGE_FILE)["cases"] == read(whole, P.JUDGE_FILE)["cases"]
    result = f"{P.OUT_DIR}/{P.RESULT_FILE}"
    assert untimed(read(merged, result)) == untimed(read(whole, result))
    assert read(merged, P.VERDICT_FILE)["verdict"] == read(whole, P.VERDICT_FILE)["verdict"]


@pytest.mark.slow
def test_both_slots_ran_a_shard_side_by_side(sharded):
    """Each shard was its own worker (its own sandbox record and judgement), and each began
    before the other ended: two slots, not one after the other."""
    folders = [sharded / "jobs" / TASK / f"shard-{k}" for k in (1, 2)]
    for folder in folders:
        assert (folder / P.EXEC_FILE).is_file() and (folder / P.JUDGE_FILE).is_file()
        assert (folder / P.VERDICT_FILE).is_file()  # each shard's own journal entry
    began = [(f / P.JOB_FILE).stat().st_mtime for f in folders]
    ended = [(f / P.EXEC_FILE).stat().st_mtime for f in folders]
    assert began[0] < ended[1] and began[1] < ended[0]


@pytest.mark.slow
def test_a_regrade_of_a_sharded_run_gives_the_same_report(sharded, tmp_path):
    from kgb.runner.regrade import regrade

    copy = Path(shutil.copytree(sharded, tmp_path / "run"))
    before = json.loads((copy / "report.json").read_text())
    report, changed = regrade(copy)
    assert changed == [] and report["jobs"] == before["jobs"]


# ------------------------------------------------------------------ the merge's precedence
@pytest.fixture
def task_copy(sharded, tmp_path) -> Path:
    """A copy of the sharded run, whose shards are changed and merged again."""
    return Path(shutil.copytree(sharded, tmp_path / "run"))


def _merge(out: Path) -> P.JobRecord:
    task = out / "jobs" / TASK
    return merge_shards(task, [task / "shard-1", task / "shard-2"], out,
                        Limits(wall_time_s=600.0))


def _shard(out: Path, k: int) -> Path:
    return out / "jobs" / TASK / f"shard-{k}"


def _fail_last_case(shard: Path) -> str:
    """The shard's last case judged wrong on its primary call, as the judge writes it."""
    path = shard / P.JUDGE_FILE
    judged = json.loads(path.read_text())
    case = judged["cases"][-1]
    case["calls"][0].update(status="failed", max_abs=0.5, rel_l2=0.25,
                            message="max abs error 0.5 at (3, 1)")
    path.write_text(json.dumps(judged))
    return case["id"]


@pytest.mark.slow
def test_a_wrong_case_in_the_second_shard_makes_the_task_incorrect_naming_it(task_copy):
    case = _fail_last_case(_shard(task_copy, 2))
    record = _merge(task_copy)
    assert record.verdict.verdict == P.Verdict.INCORRECT
    assert record.verdict.message.startswith(f"{case}:")
    statuses = {c.id: c.status for c in record.verdict.cases}
    assert statuses.pop(case) == P.CaseStatus.FAILED
    assert set(statuses.values()) == {P.CaseStatus.PASSED}
    # the task's journal entry is the merged record, and a regrade of the folder agrees
    from kgb.runner.grade import grade
    from kgb.runner.journal import finished

    task = task_copy / "jobs" / TASK
    assert finished(task) == record == grade(task, task_copy)


@pytest.mark.slow
def test_a_shard_that_crashed_crashes_the_task_whatever_the_other_found(task_copy):
    _fail_last_case(_shard(task_copy, 1))  # a wrong case in shard 1 ...
    (_shard(task_copy, 2) / P.OUT_DIR / P.RESULT_FILE).unlink()  # ... and shard 2 died
    record = _merge(task_copy)
    assert record.verdict.verdict == P.Verdict.CRASHED  # as the unsharded job: it died
    assert "without a result" in record.verdict.message


@pytest.mark.slow
def test_a_shard_that_timed_out_times_the_task_out_counting_the_earlier_shards(task_copy):
    _fail_last_case(_shard(task_copy, 1))
    second = _shard(task_copy, 2)
    execution = json.loads((second / P.EXEC_FILE).read_text())
    execution.update(timed_out=True)
    (second / P.EXEC_FILE).write_text(json.dumps(execution))
    (second / P.OUT_DIR / P.PROGRESS_FILE).write_text(json.dumps(
        {"stage": "cases", "cases_done": 1, "compile_s": 0.0, "elapsed_s": 9.0}))
    record = _merge(task_copy)
    first_cases = len(json.loads((_shard(task_copy, 1) / "plan.json").read_text())["cases"])
    assert record.verdict.verdict == P.Verdict.TIMEOUT
    assert f"{first_cases + 1} case(s) done" in record.verdict.message


@pytest.mark.slow
def test_shards_whose_run_times_add_up_past_the_budget_time_the_task_out(task_copy):
    """Each shard may run the whole --timeout, but the task has one run-time budget: two
    shards of 400 s of run time each (600 s budget) is the timeout the one job would have hit
    (it passed before: each shard alone was within the limit). Start-up, compile and CPU-wait
    credit is not run time."""
    for k, credit in ((1, 0.0), (2, 30.0)):
        path = _shard(task_copy, k) / P.EXEC_FILE
        execution = json.loads(path.read_text())
        execution.update(worker_s=400.0 + credit, compile_s=credit, startup_s=0.0,
                         waited_s=0.0)
        path.write_text(json.dumps(execution))
    record = _merge(task_copy)
    assert record.verdict.verdict == P.Verdict.TIMEOUT, record.verdict
    assert "run-time budget" in record.verdict.message
    merged = json.loads((task_copy / "jobs" / TASK / P.EXEC_FILE).read_text())
    assert any("add up to 800.0 s" in n for n in merged["notes"]), merged["notes"]
    for k in (1, 2):  # within the budget together: passed, as before
        path = _shard(task_copy, k) / P.EXEC_FILE
        path.write_text(json.dumps({**json.loads(path.read_text()), "worker_s": 290.0}))
    assert _merge(task_copy).verdict.verdict == P.Verdict.PASSED


@pytest.mark.slow
def test_a_tampered_result_in_one_shard_is_rejected_as_in_one_job(task_copy):
    (_shard(task_copy, 2) / P.OUT_DIR / P.RESULT_FILE).write_text('{"stage": "done", "x": 1}')
    record = _merge(task_copy)
    assert record.verdict.verdict == P.Verdict.REJECTED and record.verdict.rule == "D205"


@pytest.mark.slow
def test_a_shard_whose_judge_failed_leaves_the_task_unverified_never_incorrect(task_copy):
    _fail_last_case(_shard(task_copy, 2))  # evidence of a wrong case in the other shard
    first = _shard(task_copy, 1)
    (first / P.JUDGE_FILE).unlink()
    (first / P.JUDGE_LOG).write_text("RuntimeError: reference worker out of memory\n")
    record = _merge(task_copy)
    assert record.verdict.verdict == P.Verdict.UNVERIFIED  # an unsharded job's failed judge
    assert "reference worker failed" in record.verdict.message
    assert "out of memory" in record.verdict.message


@pytest.mark.slow
def test_an_earlier_attempt_s_files_never_mix_into_the_merge(task_copy):
    task = task_copy / "jobs" / TASK
    (task / "shard-3").mkdir()  # a split of a run resumed on more slots
    (task / P.JUDGE_LOG).write_text("stale")
    _merge(task_copy)
    assert not (task / "shard-3").exists() and not (task / P.JUDGE_LOG).exists()


def test_the_merged_sandbox_record_keeps_each_case_s_timed_window():
    """Clocked evidence of two shards laid end to end: each case's timing-loop window is its
    own shard's, and no mark of one shard falls inside the other's."""
    from kgb.runner.shards import _merged_exec
    from kgb.runner.speed import window_ms

    def record(case: str, start: float, end: float, worker_s: float) -> P.ExecRecord:
        return P.ExecRecord("process", 0, False, worker_s + 1, False, channel=True,
                            marks=(P.Mark(f"start {case}", start), P.Mark(f"end {case}", end)),
                            commits=(P.Commit(case, ("f",), (0,), end),), compile_s=1.0,
                            worker_s=worker_s, output_used=10, output_cap=100, output_free=50)

    merged = _merged_exec([record("a", 3.0, 3.5, 5.0), record("b", 1.0, 1.25, 4.0)])
    timed = {c: P.TimedCase(c, (0.1,), 1, ("f",), (0,)) for c in ("a", "b")}
    assert window_ms(timed["a"], merged) == pytest.approx(500.0)
    assert window_ms(timed["b"], merged) == pytest.approx(250.0)
    assert min(m.t for m in merged.marks[2:]) > max(m.t for m in merged.marks[:2])
    assert merged.channel and merged.compile_s == 2.0 and merged.worker_s == 5.0
    assert [c.case for c in merged.commits] == ["a", "b"] and merged.commits[1].t > 5.0


def _idle_ghosts(shard: Path) -> None:
    """The shard's judge found every ghost call an idle answer (kgb.judge.ghost): INFRA."""
    from kgb.judge.ghost import UNABLE

    path = shard / P.JUDGE_FILE
    judged = json.loads(path.read_text())
    for case in judged["cases"]:
        for call in case["calls"]:
            if call["kind"] == "ghost":
                call.update(status="infra", message=UNABLE, max_abs=None, rel_l2=None)
    path.write_text(json.dumps(judged))


@pytest.mark.slow
def test_the_ghost_rule_over_a_job_s_cases_is_decided_over_the_task_s(task_copy):
    """A job none of whose ghost calls could tell is unverified (kgb.judge.ghost): one shard
    whose ghosts were all idle answers does not make the task so while another's told."""
    _idle_ghosts(_shard(task_copy, 1))
    record = _merge(task_copy)
    assert record.verdict.verdict == P.Verdict.PASSED, record.verdict.message


@pytest.mark.slow
def test_a_task_none_of_whose_ghosts_could_tell_stays_unverified(task_copy):
    _idle_ghosts(_shard(task_copy, 1))
    _idle_ghosts(_shard(task_copy, 2))
    record = _merge(task_copy)
    assert record.verdict.verdict == P.Verdict.UNVERIFIED
    assert "ghost check (D301) could not run" in record.verdict.message


@pytest.mark.slow
def test_a_resumed_run_reuses_a_shard_only_where_its_cases_are_this_split_s(sharded):
    """--resume: a shard's journal entry counts only for the very cases it ran (a run resumed
    on another number of slots splits its tasks otherwise and reruns those shards)."""
    from types import SimpleNamespace

    from kgb.runner.journal import finished
    from kgb.runner.plan import Job, plan_cases
    from kgb.runner.shards import _reuse_shard
    from kgb.tasks.index import index_suite

    task = index_suite(Path("tasks")).load(TASK)
    cases = plan_cases(task, "cpu", 0)
    first = len(_entry(sharded)["shards"][0]["cases"])
    ctx = SimpleNamespace(out_dir=sharded)

    def reuse(work):
        return finished(sharded / "jobs" / work[0].folder)

    same = Job(task, None, cases[:first], "cpu", shard=(0, 2))
    other = Job(task, None, cases[:first - 1], "cpu", shard=(0, 2))
    assert _reuse_shard((same, ctx), reuse) is not None
    assert _reuse_shard((other, ctx), reuse) is None


def test_run_sharded_splits_merges_once_and_leaves_a_stopped_task_unfinished(monkeypatch,
                                                                            tmp_path):
    """The control flow around the schedule, with the schedule and the merge stubbed: a
    split task is merged once all its shards finished, never from part of them; the progress
    shows one start and one end per task; `off` hands the works over untouched."""
    from types import SimpleNamespace

    import kgb.runner.schedule as schedule
    import kgb.runner.shards as shards
    from kgb.runner.plan import Job, plan_cases
    from kgb.tasks.index import index_suite

    task = index_suite(Path("tasks")).load(TASK)
    job = Job(task, SimpleNamespace(entry=None), plan_cases(task, "cpu", 0), "cpu")
    ctx = SimpleNamespace(timing=False, out_dir=tmp_path, limits=Limits(wall_time_s=600.0))
    seen: dict = {}

    def fake_run_works(works, slots, cancel, progress, reuse, placement=None, stop=None):
        seen["works"] = works
        for part, _ in works:
            progress.start(part.task.id)
        done = works if stop is None else works[:stop]
        for part, _ in done:
            progress.done(part.task.id, "passed")
        return schedule.ScheduleOutcome(tuple((p, f"record of {p.folder}") for p, _ in done),
                                        interrupted=None if stop is None else "SIGINT")

    merged: list = []
    monkeypatch.setattr(shards, "merge_shards",
                        lambda task_dir, dirs, out, limits: merged.append(dirs) or "merged")

    class Progress:
        def __init__(self) -> None:
            self.lines: list = []

        def start(self, name):
            self.lines.append(("start", name))

        def done(self, name, verdict):
            self.lines.append(("done", name))

    monkeypatch.setattr(schedule, "run_works", fake_run_works)
    progress = Progress()
    outcome = shards.run_sharded([(job, ctx)], ("cpu", "cpu"), None, progress,
                                 lambda w: None, mode="on")
    assert [p.folder for p, _ in seen["works"]] == [f"{TASK}/shard-1", f"{TASK}/shard-2"]
    assert [c.id for p, _ in seen["works"] for c in p.cases] == [c.id for c in job.cases]
    assert outcome.results == ((job, "merged"),)
    assert merged == [[tmp_path / "jobs" / TASK / "shard-1", tmp_path / "jobs" / TASK / "shard-2"]]
    assert progress.lines == [("start", TASK), ("done", TASK)]

    monkeypatch.setattr(schedule, "run_works",
                        lambda *a, **k: fake_run_works(*a, **k, stop=1))
    outcome = shards.run_sharded([(job, ctx)], ("cpu", "cpu"), None, Progress(),
                                 lambda w: None, mode="on")
    assert outcome.results == () and outcome.interrupted == "SIGINT" and len(merged) == 1

    monkeypatch.setattr(schedule, "run_works", fake_run_works)
    shards.run_sharded([(job, ctx)], ("cpu", "cpu"), None, Progress(), lambda w: None,
                       mode="off")
    assert [p for p, _ in seen["works"]] == [job]


@pytest.mark.slow
def test_a_shard_s_worker_cannot_speak_for_a_case_another_shard_ran(task_copy):
    """Shard 1's evidence shows PyTorch at run time on its first case; shard 2's worker also
    writes a clean record (and timing marks) for that case. Only shard 1 speaks for it."""
    first, second = _shard(task_copy, 1), _shard(task_copy, 2)
    result = json.loads((first / P.OUT_DIR / P.RESULT_FILE).read_text())
    case = result["cases"][0]
    forged = json.loads(json.dumps(case))
    case["calls"][0]["torch_ops"] = ["aten::addcmul"]
    (first / P.OUT_DIR / P.RESULT_FILE).write_text(json.dumps(result))
    other = json.loads((second / P.OUT_DIR / P.RESULT_FILE).read_text())
    other["cases"].append(forged)
    (second / P.OUT_DIR / P.RESULT_FILE).write_text(json.dumps(other))
    execution = json.loads((second / P.EXEC_FILE).read_text())
    execution["marks"] = [{"label": f"start {case['id']}", "t": 1.0}] + execution["marks"]
    (second / P.EXEC_FILE).write_text(json.dumps(execution))
    record = _merge(task_copy)
    assert record.verdict.verdict == P.Verdict.REJECTED and record.verdict.rule == "D206", \
        record.verdict
    assert record.verdict.message.startswith(f"{case['id']}:")
    merged = json.loads((task_copy / "jobs" / TASK / P.EXEC_FILE).read_text())
    assert f"start {case['id']}" not in [m["label"] for m in merged["marks"]]
