"""Exit codes the README promises, wherever the event lands: Ctrl-C is 130 in every command,
and a failure while a run is being set up leaks no sandbox or judge."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest

from conftest import ROOT


def test_ctrl_c_in_any_command_exits_130():
    """`kgb sandbox check` is not `kgb verify`: Click turns the interrupt into Abort there."""
    # A test runner started in the background by a non-interactive shell (`nohup ... &`)
    # ignores SIGINT, and its children inherit that; a terminal's Ctrl-C reaches a process with
    # the default disposition, so the child gets that back.
    proc = subprocess.Popen([sys.executable, "-m", "kgb.cli", "sandbox", "check", "--backend",
                             "process", "--stdout-gb", "50"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # interrupt once the check is under way (its first sandboxed child exists), not after a
    # fixed wait: on a loaded 2-core machine the imports alone can outlast one
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None and \
            not psutil.Process(proc.pid).children(recursive=True):
        time.sleep(0.2)
    time.sleep(1)
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


def test_hw_without_a_gpu_says_so_and_calibrate_is_bad_input(kgb):
    import json

    shown = kgb("hw", "--json", timeout=120)
    assert shown.returncode == 0, shown.stderr
    info = json.loads(shown.stdout)
    assert info["device"] is None and "interpreter" in info["note"]
    calibrate = kgb("hw", "calibrate", timeout=120)
    assert calibrate.returncode == 2
    assert calibrate.stderr.count("\n") == 1 and "no CUDA device" in calibrate.stderr


def test_hw_render_names_the_peaks_the_floor_uses():
    from kgb.bench.device_info import render

    info = {"torch": "2.11", "cuda": "13.0", "triton": "3.6", "device": "NVIDIA H100 80GB HBM3",
            "index": 0, "memory_gib": 79.2, "sms": 132, "compute_capability": "9.0",
            "l2_mib": 50.0, "driver": "580", "sm_clock_mhz": 1980, "sm_clock_max_mhz": 1980,
            "mem_clock_max_mhz": 2619, "power_limit_w": 700.0, "temperature_c": 31,
            "peaks": {"datasheet": {"device": "x", "source": "datasheet: H100",
                                    "bandwidth_gbps": 3350.0, "tflops": {"float16": 989.4}},
                      "calibrated": None, "calibration_file": "/x.json",
                      "floor": {"source": "datasheet: H100"},
                      "efficiency": {"source": "datasheet: H100"}}}
    text = render(info)
    assert "132 SMs, sm_90" in text and "3350 GB/s" in text
    assert "calibrated: none (run `kgb hw calibrate`)" in text
    assert "roofline floor uses: datasheet: H100" in text
