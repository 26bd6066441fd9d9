"""Exit codes the README promises, wherever the event lands: Ctrl-C is 130 in every command,
and a failure while a run is being set up leaks no sandbox or judge."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT


def test_ctrl_c_in_any_command_exits_130():
    """`kgb sandbox check` is not `kgb verify`: Click turns the interrupt into Abort there."""
    proc = subprocess.Popen([sys.executable, "-m", "kgb.cli", "sandbox", "check", "--backend",
                             "process", "--stdout-gb", "50"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-1000:]
    assert "interrupted" in err


def test_a_failure_after_the_sandbox_exists_closes_it(monkeypatch, tmp_path):
    from kgb.errors import BadInput
    from kgb.runner import journal, verify
    from kgb.sandbox.base import Sandbox

    closed = []

    class Recording(Sandbox):
        name, isolation, enforced = "recording", "none", ()

        @classmethod
        def unavailable_reason(cls):
            return None

        def run(self, request, limits):  # pragma: no cover - never reached
            raise AssertionError

        def close(self):
            closed.append(True)

    def broken_digest(*args, **kwargs):
        raise BadInput("the plan could not be digested")

    monkeypatch.setattr(verify, "create_sandbox", lambda name: Recording())
    monkeypatch.setattr(journal, "plan_digest", broken_digest)
    options = verify.VerifyOptions(submission=ROOT / "examples" / "honest",
                                   tasks_dir=ROOT / "tasks", out_dir=tmp_path / "out",
                                   device="cpu", only=("math.addcmul",))
    with pytest.raises(BadInput, match="could not be digested"):
        verify.run_verify(options, as_json=True)
    assert closed == [True]
