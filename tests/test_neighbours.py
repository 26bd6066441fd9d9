"""Other processes on a job's GPU (kgb.bench.neighbours): which are the job's own, on real
processes of this machine, and what a watch over a fake NVML reports."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import psutil
import pytest

from kgb.bench.conditions import conditions
from kgb.bench.neighbours import NeighbourWatch, is_jobs_own

GHOST = 4_194_000  # above any pid this machine hands out (pid_max is at most 4194304)


@pytest.fixture
def processes(tmp_path):
    """A worker-like process for job `tmp_path` with a child, and an unrelated process."""
    job = str(tmp_path / "jobs" / "math.addcmul")
    worker = subprocess.Popen([sys.executable, "-c",
                               "import subprocess; subprocess.run(['sleep', '60'])",
                               "-m", "kgb.worker", job])
    other = subprocess.Popen(["sleep", "60"])
    deadline = time.monotonic() + 10
    while not psutil.Process(worker.pid).children() and time.monotonic() < deadline:
        time.sleep(0.05)
    child = psutil.Process(worker.pid).children()[0].pid
    yield job, worker.pid, child, other.pid
    for proc in (worker, other):
        psutil.Process(proc.pid).kill()
        proc.wait()
    if psutil.pid_exists(child):
        psutil.Process(child).kill()


def test_the_jobs_worker_and_its_children_are_its_own_and_nothing_else(processes):
    job, worker, child, other = processes
    assert is_jobs_own(worker, job, ()) is True
    assert is_jobs_own(child, job, ()) is True  # what the candidate starts is still the job
    assert is_jobs_own(other, job, ()) is False
    assert is_jobs_own(other, job, (other,)) is True  # kgb itself, its judges
    assert is_jobs_own(child, "/elsewhere", (worker,)) is True  # and what they start
    assert is_jobs_own(worker, job + "-other", ()) is False  # another job's worker
    assert is_jobs_own(GHOST, job, ()) is None  # not visible from here: no telling whose


def test_a_watch_reports_the_neighbours_it_saw_and_what_it_could_not_see(processes):
    job, worker, child, other = processes
    samples = [[worker], [worker, child, other, GHOST], [worker]]  # the neighbour came and went

    def list_pids(index: int) -> list[int]:
        assert index == 3
        return samples.pop(0) if len(samples) > 1 else samples[0]

    watch = NeighbourWatch(3, job, (), list_pids).start()
    deadline = time.monotonic() + 10
    while len(samples) > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    seen = watch.stop()
    assert seen.seen == (f"{other} sleep",) and seen.unattributed == (GHOST,)
    assert seen.error is None
    recorded = conditions("no clocks here", "no clocks here", seen)
    assert recorded.neighbours == (f"{other} sleep",) and recorded.unattributed == (GHOST,)


def test_a_watch_that_cannot_read_the_gpu_says_so():
    def broken(index: int) -> list[int]:
        raise OSError("NVML Shared Library Not Found")

    seen = NeighbourWatch(0, "/nowhere", (), broken).start().stop()
    assert seen.seen == () and "NVML Shared Library Not Found" in seen.error


def test_without_the_worker_among_nvmls_pids_no_neighbour_is_named(processes):
    """kgb in a container of its own: NVML's root-namespace pids may match unrelated processes
    here, and the job's worker is not among them, so nothing can be attributed."""
    job, worker, child, other = processes
    seen = NeighbourWatch(0, job, (), lambda index: [other]).start().stop()
    assert seen.seen == () and "could not be attributed" in seen.error


def test_an_orphan_under_the_jobs_supervisor_is_still_the_jobs(tmp_path):
    """In a container, a double-forked child is re-parented to the supervisor (or docker-init),
    whose command line names the worker inside one JSON argument: it must not pass for a
    neighbour, which would turn its D304 into a mere note."""
    job = str(tmp_path / "jobs" / "math.addcmul")
    config = json.dumps({"argv": [sys.executable, "-m", "kgb.worker", job]})
    supervisor = subprocess.Popen([sys.executable, "-c",
                                   "import subprocess; subprocess.run(['sleep', '60'])", config])
    try:
        deadline = time.monotonic() + 10
        while not psutil.Process(supervisor.pid).children() and time.monotonic() < deadline:
            time.sleep(0.05)
        orphan = psutil.Process(supervisor.pid).children()[0].pid
        assert is_jobs_own(orphan, job, ()) is True
        assert is_jobs_own(orphan, str(tmp_path / "jobs" / "other"), ()) is False
    finally:
        for proc in psutil.Process(supervisor.pid).children(recursive=True):
            proc.kill()
        supervisor.kill()
        supervisor.wait()
