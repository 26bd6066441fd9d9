"""A worker the sandbox could not start (its folder unreachable, its program missing: kgb's
set-up) is kgb's failure — JobNotStarted, an infrastructure error the run retries or reports —
never the candidate's `crashed`. The supervisor learns it from a close-on-exec pipe, which no
candidate code can write: it closes when the worker's program starts."""

from __future__ import annotations

import sys

import pytest

from kgb.sandbox import Limits, SandboxRequest, available_backends, create_sandbox
from kgb.sandbox.base import JobNotStarted

BACKENDS = ["process", pytest.param("bwrap", marks=pytest.mark.bwrap),
            pytest.param("docker", marks=pytest.mark.docker)]


def _sandbox(name: str):
    reason = available_backends().get(name, "not importable")
    if reason:
        pytest.skip(f"{name} backend unavailable: {reason}")
    return create_sandbox(name)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_worker_that_cannot_start_is_kgbs_failure_not_a_crash(tmp_path, backend):
    sandbox = _sandbox(backend)
    tmp_path.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    try:
        with pytest.raises(JobNotStarted, match="could not be started"):
            sandbox.run(SandboxRequest(
                argv=(sys.executable, "-c", "print('ran')"), out_dir=out, ro_paths=(),
                env=(), tmp_dir=tmp_path / "scratch", cwd=tmp_path / "no-such-folder"),
                Limits(wall_time_s=30))
    finally:
        sandbox.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_candidate_that_exits_127_is_still_its_own_exit(tmp_path, backend):
    """The honest twin: exit code 127 and the same words on stderr from the candidate's own
    program are its exit, not kgb's failure (the pipe closed when it started)."""
    sandbox = _sandbox(backend)
    tmp_path.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    code = ("import os, sys; sys.stderr.write('kgb sandbox: cannot start the worker: forged\\n');"
            " os._exit(127)")
    try:
        result = sandbox.run(SandboxRequest(
            argv=(sys.executable, "-c", code), out_dir=out, ro_paths=(), env=(),
            tmp_dir=tmp_path / "scratch"), Limits(wall_time_s=30))
    finally:
        sandbox.close()
    assert result.returncode == 127 and "forged" in result.stderr


@pytest.mark.docker
def test_a_held_exec_the_engine_has_not_begun_yet_is_not_ended(tmp_path, monkeypatch):
    """On a busy machine the engine may report a held start's exec as not running before it
    has begun (no exit code yet). That is not a sandbox that ended while it waited: the job
    runs once released (a neighbour run beside `make test` ended exit 3 on it)."""
    sandbox = _sandbox("docker")
    tmp_path.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    client = sandbox._engine()
    real = client.api.exec_inspect
    monkeypatch.setattr(client.api, "exec_inspect",
                        lambda exec_id: {**real(exec_id), "Running": False, "ExitCode": None})
    code = "import os; print('released', os.read(int(os.environ['KGB_CHANNEL'].split(',')[1]), 2))"
    try:
        started = sandbox.start(SandboxRequest(
            argv=(sys.executable, "-c", code), out_dir=out, ro_paths=(), env=(),
            tmp_dir=tmp_path / "scratch", channel=True, label="t/not-begun"),
            Limits(wall_time_s=30))
        result = started.go()
    finally:
        sandbox.close()
    assert result.returncode == 0 and "released b'G\\n'" in result.stdout, result
