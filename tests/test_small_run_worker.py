"""The worker's share of a small run (issue 24): no torch._dynamo import for the dispatch
trace, and the deferred-write wait (threat 13) overlapped with the next calls without
letting a late write through. The corpus fixtures tests/fixtures/dynamic/d305_* and
passed_relu_reuses_its_output_buffer.py prove the same end to end (tests/test_dynamic_corpus.py)."""

from __future__ import annotations

import subprocess
import sys
import time

import torch
from conftest import ROOT

from kgb import protocol as P
from kgb.tasks.casegen import outputs_fingerprint
from kgb.worker.main import _CallRunner, _LateCheck, _Progress

_NO_DYNAMO = """
import sys
import torch
from kgb.worker.evidence import DispatchTrace
from kgb.worker.launch_args import KernelBodyWatch
trace = DispatchTrace()
trace.start()
torch.ones(3).add_(1)
trace.stop()
with KernelBodyWatch().watching("k"):
    torch.ones(3).add_(1)
print("torch._dynamo" in sys.modules)
"""


def test_the_dispatch_trace_does_not_import_dynamo():
    # torch wraps a dispatch mode's handler in _disable_dynamo, whose first call imports
    # torch._dynamo: 1.7 s of CPU in every worker before the modes opted out
    out = subprocess.run([sys.executable, "-c", _NO_DYNAMO], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False", out.stdout + out.stderr


def _runner(outputs: tuple, due_in: float) -> tuple[_CallRunner, _Progress]:
    progress = _Progress()
    runner = object.__new__(_CallRunner)
    runner.sync, runner.progress = (lambda: None), progress
    runner.pending = [_LateCheck(3, 0, outputs, outputs_fingerprint(outputs),
                                 time.perf_counter() + due_in)]
    return runner, progress


def test_a_write_before_the_next_call_is_late_whatever_that_call_returns():
    out = torch.zeros(8)
    runner, progress = _runner((out,), 0.05)
    out[0] = 1.0  # landed after the save, before the candidate ran again
    runner.settle(None)
    runner.settle((out,))  # the next call returned the same buffer: no excuse now
    assert progress.late == {(3, 0)}


def test_a_write_during_the_next_call_is_late_unless_that_call_returned_the_memory():
    out, other = torch.zeros(8), torch.zeros(8)
    runner, progress = _runner((out,), 0.05)
    runner.settle(None)
    out[1] = 1.0  # landed while the next call ran
    runner.settle((other,))
    assert progress.late == {(3, 0)} and runner.pending == []

    runner, progress = _runner((out,), 0.05)
    runner.settle(None)
    out[2] = 1.0  # the next call wrote the buffer it returns again (an honest reuse)
    runner.settle((out[2:],))
    assert progress.late == set() and runner.pending == []


def test_a_check_spans_several_calls_until_its_wait_is_over():
    out, other = torch.zeros(8), torch.zeros(8)
    runner, progress = _runner((out,), 0.5)
    runner.settle(None)
    runner.settle((other,))  # nothing changed, the wait is not over: still watched
    assert len(runner.pending) == 1
    runner.settle(None)
    out[3] = 1.0  # lands during the second call after it, which returns other memory
    runner.settle((other,))
    assert progress.late == {(3, 0)} and runner.pending == []

    runner, progress = _runner((out,), 0.0)
    runner.settle((other,))  # unchanged at a re-read after its due time: over, no sleep
    assert runner.pending == [] and progress.late == set()


def test_the_wait_is_never_shorter_than_late_write_wait_s():
    out = torch.zeros(8)
    runner, progress = _runner((out,), P.LATE_WRITE_WAIT_S)
    began = time.perf_counter()
    runner.settle(None)
    runner.settle((), last=True)
    assert time.perf_counter() - began >= P.LATE_WRITE_WAIT_S * 0.95
    assert progress.late == set() and runner.pending == []


def test_late_calls_are_marked_in_the_result():
    progress = _Progress()
    call = P.CallRecord(index=0, kind=P.CallKind.PRIMARY, status=P.CaseStatus.RETURNED)
    progress.cases = [P.CaseRecord("a", (call, call)), P.CaseRecord("b", (call,))]
    progress.late = {(0, 1)}
    cases = progress.result().cases
    assert [c.late_write for c in cases[0].calls] == [False, True]
    assert not cases[1].calls[0].late_write


def test_a_kernel_registering_a_torch_library_op_gets_dynamo_before_its_run_time():
    # its registration imports torch._dynamo; preimported, that is start-up, not its run time
    from kgb.worker.main import needs_dynamo

    fixtures = ROOT / "tests" / "fixtures" / "dynamic"
    assert needs_dynamo(str(fixtures / "passed_relu_triton_op.py"))
    assert needs_dynamo(str(fixtures / "passed_silu_custom_op_mutates_out.py"))
    assert not needs_dynamo(str(ROOT / "tasks" / "Activation" / "relu" / "solution.py"))
    assert not needs_dynamo(str(fixtures / "missing.py"))


_HELPERS = """
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
import torch, triton, triton.language as tl
from triton.runtime import interpreter as it
from kgb.worker import interpreter_speed

@triton.jit
def softmax_rows(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))  # tl.max and tl.sum are @triton.jit helpers
    tl.store(out_ptr + row * n + offs, e / tl.sum(e, axis=0), mask=offs < n)

scans = [0]
original = it._patch_lang
def counting(fn):
    scans[0] += 1
    return original(fn)
it._patch_lang = counting
if sys.argv[1] == "on":
    assert interpreter_speed.apply()
x = torch.randn(6, 10, generator=torch.Generator().manual_seed(0))
outs = []
for _ in range(2):
    out = torch.empty_like(x)
    softmax_rows[(6,)](x, out, 10, BLOCK=16)
    outs.append(out)
    assert tl.core.is_builtin(tl.load)  # the launch's patches were restored
print(scans[0], torch.cat(outs).double().sum().item(), torch.equal(outs[0], outs[1]))
"""


def test_the_interpreter_patches_the_language_once_per_launch_with_the_same_results():
    runs = {mode: subprocess.run([sys.executable, "-c", _HELPERS, mode], capture_output=True,
                                 text=True, check=True).stdout.split() for mode in ("off", "on")}
    (scans_off, total_off, same_off), (scans_on, total_on, same_on) = runs["off"], runs["on"]
    assert total_on == total_off and same_on == same_off == "True"
    # off: a launch plus two helper calls per program (6 programs, 2 launches); on: each
    # launch's own patching and one for the helpers' module (tl.core), once per launch
    assert int(scans_off) >= 2 + 2 * 6 * 2 and int(scans_on) <= 2 * 2, runs


def test_large_outputs_are_not_held_past_their_own_wait():
    big = torch.zeros(70 << 20, dtype=torch.uint8)  # 70 MiB, four of them past the bound
    runner, progress = _runner((big,), P.LATE_WRITE_WAIT_S)
    runner.pending += [_LateCheck(3, n, (torch.zeros_like(big),), runner.pending[0].settled,
                                  time.perf_counter() + P.LATE_WRITE_WAIT_S) for n in (1, 2, 3)]
    began = time.perf_counter()
    runner.bound()
    assert len(runner.pending) == 3 and runner.pending[0].call == 1  # the oldest waited in full
    assert time.perf_counter() - began >= P.LATE_WRITE_WAIT_S * 0.95 and progress.late == set()
