"""Warm slots (issue 24): a slot starts its next job's sandbox and worker (imports included)
while the current job runs, and every candidate still gets a fresh process in a fresh sandbox.
- Held starts (Sandbox.start): the run-time limit and the worker's clock start at `go`, not
  when the sandbox started; an abandoned start leaves no process or container behind.
- Hidden state: a job that plants state everywhere it can (files in every writable folder, the
  Triton and Inductor caches, a process that outlives it; GPU memory on a GPU) and the next job
  on the same slot, started warm, looks for it: nothing found on bwrap and docker; on process
  (isolation: none) only the host's shared folders, as docs/sandboxes.md says.
docker/bwrap cases skip (with the backend's reason) only where the engine or binary is missing.
"""

from __future__ import annotations

import json
import secrets
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from conftest import ROOT, run_kgb
from kgb.runner.execute import runtime_paths
from kgb.sandbox import available_backends, create_sandbox
from kgb.sandbox.base import Limits, SandboxRequest

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "hidden_state"))
import probe  # noqa: E402

BACKENDS = [pytest.param("process"),
            pytest.param("bwrap", marks=pytest.mark.bwrap),
            pytest.param("docker", marks=pytest.mark.docker)]


def backend_or_skip(name: str):
    reason = available_backends().get(name, "not importable")
    if reason:
        pytest.skip(f"{name} backend unavailable: {reason}")
    return create_sandbox(name)


def _request(code: str, label: str) -> SandboxRequest:
    # directly under /tmp: the worker's uid (bwrap, docker) must reach its folders
    out, tmp = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    return SandboxRequest(argv=(sys.executable, "-c", code), out_dir=out,
                          ro_paths=runtime_paths(), env=(("PATH", "/usr/bin:/bin"),),
                          tmp_dir=tmp, channel=True, label=label)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_held_start_counts_its_time_from_go(backend, tmp_path):
    """Held 3 s before `go`, a 1-second worker under a 2-second limit is not timed out, and
    its time on the supervisor's clock is its own second, not the wait."""
    sandbox = backend_or_skip(backend)
    code = ("import os, time\n"
            "fd = int(os.environ['KGB_CHANNEL'].split(',')[1])\n"
            "assert os.environ.get('KGB_HOLD') == '1'\n"
            "print('released', os.read(fd, 2)); time.sleep(1)\n")
    try:
        started = sandbox.start(_request(code, "t/held"),
                                Limits(wall_time_s=2.0, compile_time_s=0.0))
        time.sleep(3)
        result = started.go()
    finally:
        sandbox.close()
    assert result.returncode == 0 and not result.timed_out, result
    assert "released b'G\\n'" in result.stdout
    assert result.worker_s is not None and 0.9 < result.worker_s < 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_abandoned_start_leaves_nothing_behind(backend, tmp_path):
    sandbox = backend_or_skip(backend)
    marker = f"kgb-abandoned-{secrets.token_hex(6)}"
    code = f"import time; time.sleep(120)  # {marker}"
    try:
        started = sandbox.start(_request(code, f"t-{marker}/held"), Limits(wall_time_s=60.0))
        time.sleep(1.5)
        if backend != "docker":  # a container's processes are not the host's to list by argv
            assert _processes_with(marker), "the held worker never started"
        started.abandon()
    finally:
        sandbox.close()
    deadline = time.monotonic() + 10
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _processes_with(marker)
    if backend == "docker":
        import docker

        client = docker.from_env()
        assert not client.containers.list(all=True,
                                          filters={"label": f"kgb.run=t-{marker}"})


def _processes_with(marker: str) -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if any(marker in part for part in proc.info["cmdline"] or ()):
                found.append(proc.pid)
        except psutil.Error:
            pass
    return found


@pytest.mark.parametrize("backend", BACKENDS)
def test_state_one_job_plants_is_not_seen_by_the_next_warm_job(backend, tmp_path):
    backend_or_skip(backend)
    submission = tmp_path / "hidden-state"
    probe.write_submission(submission)
    out = tmp_path / "out"
    done = run_kgb("verify", submission, "--sandbox", backend, "--device", "cpu", "--jobs", "1",
                   "--static", "off", "--out", out, "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    verdicts = {job["task"]: job["verdict"] for job in report["jobs"]
                if job["verdict"] != "missing"}
    assert verdicts == {probe.PLANTER: "compile_error", probe.SEEKER: "compile_error"}, verdicts
    # (an error while importing the module, on purpose: the probe is the import)
    seen = probe.read_findings(out)
    assert {"cwd", "home", "tmpdir", "triton_cache", "process"} <= set(seen["planted"]), seen
    assert set(seen["looked"]) >= set(seen["planted"]), seen
    assert 0 < seen["planted_at"] < seen["looked_at"], seen  # the planter ran first
    phases = json.loads((out / "jobs" / probe.SEEKER / "phases.json").read_text())
    assert phases["waited_for_slot_s"] is not None, "the seeker was not started warm"
    allowed = probe.PROCESS_SHARED if backend == "process" else frozenset()
    assert set(seen["found"]) <= allowed, seen


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_start_outlives_the_thread_that_made_it(backend):
    """The scheduler prepares jobs in short-lived threads; a parent-death signal fires when the
    thread that forked a child ends (bwrap --die-with-parent, the supervisor's pdeathsig), and
    every job prepared ahead under bwrap or process was SIGKILLed before its turn."""
    import threading

    sandbox = backend_or_skip(backend)
    code = ("import os; fd = int(os.environ['KGB_CHANNEL'].split(',')[1]); os.read(fd, 2); "
            "print('alive')")
    made = {}
    try:
        maker = threading.Thread(target=lambda: made.setdefault(
            "started", sandbox.start(_request(code, "t/thread"), Limits(wall_time_s=30.0))))
        maker.start()
        maker.join()
        time.sleep(1.5)
        result = made["started"].go()
    finally:
        sandbox.close()
    assert result.returncode == 0 and "alive" in result.stdout, result


def _verifier_probes(token: str) -> tuple[str, str]:
    """The planter and seeker as kernel sources for kgb.Verifier, whose job folders are gone
    once it answers: each ends with an error that carries what it planted or found (the
    result's traceback) instead of only printing it."""
    here = ROOT / "tests" / "fixtures" / "hidden_state"
    planter = (here / "planter.py").read_text().replace("@TOKEN@", token)
    seeker = (here / "seeker.py").read_text().replace("@TOKEN@", token)
    edits = [(planter, 'print(f"kgb-hidden-state planted {_place}")', "_planted.append(_place)"),
             (planter, 'print("kgb-hidden-state planted process")', '_planted.append("process")'),
             (planter, "for _place, _folder in PLACES.items():",
              "_planted = []\nfor _place, _folder in PLACES.items():"),
             (planter, 'raise RuntimeError("kgb-hidden-state probe done")',
              'raise RuntimeError("kgb-hidden-state planted " + ",".join(_planted) + " at "'
              ' + repr(time.time()))'),
             (seeker, 'raise RuntimeError("kgb-hidden-state probe done")',
              'raise RuntimeError("kgb-hidden-state found " + (",".join(_found) or "-") + '
              '" looked " + ",".join(_looked) + " at " + repr(time.time()))')]
    for source, old, _ in edits:
        assert source.count(old) == 1, old  # the fixture changed: adapt this test
    for _, old, new in edits[:4]:
        planter = planter.replace(old, new)
    return planter, seeker.replace(edits[4][1], edits[4][2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_requests_through_one_warm_verifier_slot_find_nothing_of_each_other(backend,
                                                                                 tmp_path):
    """kgb.Verifier's warm slot (kgb.serve.warm): the seeker's request is prepared (child,
    sandbox, worker imports) while the planter's runs, and goes after it on the same slot."""
    import asyncio
    import re

    import kgb
    from kgb.suite.corpus import trimmed_suite

    backend_or_skip(backend)
    suite = trimmed_suite(tmp_path / "suite", [probe.PLANTER, probe.SEEKER], shapes=1)
    planter, seeker = _verifier_probes(secrets.token_hex(8))

    async def main():
        async with kgb.Verifier(slots=1, tasks=suite, device="cpu", sandbox=backend,
                                warm="on", static=False) as verifier:
            return await verifier.verify_many([(probe.PLANTER, planter),
                                               (probe.SEEKER, seeker)])

    planted, sought = asyncio.run(main())
    assert (planted.verdict, sought.verdict) == ("compile_error", "compile_error"), \
        (planted, sought)
    put = re.search(r"kgb-hidden-state planted (\S*) at ([\d.]+)", planted.entry["traceback"])
    got = re.search(r"kgb-hidden-state found (\S+) looked (\S+) at ([\d.]+)",
                    sought.entry["traceback"])
    assert put and got, (planted.entry["traceback"], sought.entry["traceback"])
    places, found, looked = set(put[1].split(",")), set(got[1].split(",")) - {"-"}, \
        set(got[2].split(","))
    assert {"cwd", "home", "tmpdir", "triton_cache", "process"} <= places, places
    assert looked >= places and float(put[2]) < float(got[3])  # it looked after the planting
    assert found <= (probe.PROCESS_SHARED if backend == "process" else frozenset()), found
    if backend == "process":  # isolation none shares the host's /tmp: the probe does see it
        assert "tmp" in found, found
    # prepared ahead: held, ready, while the planter's request ran
    assert sought.entry["phases"]["waited_for_slot_s"] > 0.5, sought.entry["phases"]
