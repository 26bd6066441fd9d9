"""The real pipeline on real Triton kernels (CPU interpreter): candidate worker in a process
sandbox, trusted judge, verdict. Layer-2 runtime rules get a cheating fixture each, checked with
the static layer switched off so that the runtime check itself is what catches them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, write_submission
from kgb.runner import execute
from kgb.runner.execute import JobContext, run_job
from kgb.runner.judge_pool import JudgePool
from kgb.runner.plan import plan_jobs
from kgb.sandbox import Limits, create_sandbox
from kgb.submission import load_submission
from kgb.tasks.loader import load_suite

pytestmark = pytest.mark.slow

HONEST = (ROOT / "tasks/Math/addcmul/solution.py").read_text()

KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _k(x_ptr, t1_ptr, t2_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float32)
    a = tl.load(t1_ptr + offs, mask=m).to(tl.float32)
    b = tl.load(t2_ptr + offs, mask=m).to(tl.float32)
    tl.store(out_ptr + offs, (x + 0.5 * a * b).to(out_ptr.dtype.element_ty), mask=m)
'''


def cheat(body: str) -> str:
    return KERNEL + "\n" + textwrap.dedent(body)


def verdict_for(tmp_path: Path, source: str, monkeypatch, static: bool = False,
                timeout: float = 120.0, limits: Limits | None = None, sandbox=None):
    if not static:
        monkeypatch.setattr(execute, "static_findings", lambda source, job: [])
    sub_dir = write_submission(tmp_path / "sub", {"math.addcmul": source})
    out = tmp_path / "out"
    submission = load_submission(sub_dir, out / "submission")
    suite = load_suite(ROOT / "tasks")
    job = plan_jobs(suite, submission, "cpu", 1234, only=("math.addcmul",))[0]
    with JudgePool(out / "refcache", out / "judges.log") as judges:
        ctx = JobContext("test", out, sandbox or create_sandbox("process"),
                         limits or Limits(wall_time_s=timeout), submission.root, judges)
        record = run_job(job, ctx)
    return record.verdict, out / record.facts.log_dir


def test_honest_kernel_passes_and_leaves_evidence(tmp_path, monkeypatch):
    verdict, log_dir = verdict_for(tmp_path, HONEST, monkeypatch)
    assert verdict.verdict == "passed", verdict.message
    assert verdict.coverage()["passed"] == verdict.coverage()["cases"] > 0
    for name in ("plan.json", "job.json", "exec.json", "judge.json", "verdict.json",
                 "stdout.log", "stderr.log", "out/result.json", "task_inputs.py"):
        assert (log_dir / name).is_file(), name
    assert json.loads((log_dir / "verdict.json").read_text())["verdict"]["verdict"] == "passed"


def test_the_compile_budget_is_pooled_over_the_jobs_cases(tmp_path, monkeypatch):
    # An autotuned kernel compiles its configs once per (shape, dtype) it meets: the budget the
    # sandbox enforces (and the plan records) is compile_case_s per case, at least compile_time_s.
    sandbox, given = create_sandbox("process"), []
    real_start = sandbox.start  # execute starts every candidate's sandbox ahead (warm slots)
    monkeypatch.setattr(sandbox, "start", lambda request, limits: given.append(limits)
                        or real_start(request, limits))
    limits = Limits(wall_time_s=120.0, compile_time_s=5.0, compile_case_s=2.0)
    verdict, log_dir = verdict_for(tmp_path, HONEST, monkeypatch, limits=limits, sandbox=sandbox)
    cases = len(json.loads((log_dir / "plan.json").read_text())["cases"])
    assert verdict.verdict == "passed" and cases > 3, verdict.message
    assert [g.compile_time_s for g in given] == [2.0 * cases]
    assert json.loads((log_dir / "plan.json").read_text())["compile_budget_s"] == 2.0 * cases
    _, log_dir = verdict_for(tmp_path / "floor", HONEST, monkeypatch,
                             limits=Limits(wall_time_s=120.0, compile_time_s=500.0,
                                           compile_case_s=1.0))
    assert json.loads((log_dir / "plan.json").read_text())["compile_budget_s"] == 500.0


def test_input_mutation_rejected_D201(tmp_path, monkeypatch):
    src = cheat('''
        def run(x, t1, t2):
            out = torch.empty_like(x)
            n = x.numel()
            _k[(triton.cdiv(n, 256),)](x, t1, t2, out, n, BLOCK=256)
            _k[(triton.cdiv(n, 256),)](x, t1, t2, t1, n, BLOCK=256)  # scribbles over input t1
            return out
    ''')
    verdict, _ = verdict_for(tmp_path, src, monkeypatch)
    assert (verdict.verdict, verdict.rule) == ("rejected", "D201")


def test_output_aliasing_rejected_D202(tmp_path, monkeypatch):
    src = cheat('''
        def run(x, t1, t2):
            n = x.numel()
            _k[(triton.cdiv(n, 256),)](x, t1, t2, x, n, BLOCK=256)  # result written into x
            return x.view(x.shape)
    ''')
    verdict, _ = verdict_for(tmp_path, src, monkeypatch)
    assert (verdict.verdict, verdict.rule) == ("rejected", "D202")


def test_result_forged_at_exit_cannot_hide_a_violation(tmp_path, monkeypatch):
    """The D202 cheat above plus an atexit hook that rewrites result.json after the worker wrote
    it (violations turned into 'ok', outputs saved by the kernel itself). The worker leaves with
    os._exit, so no hook of the candidate runs after its result is written."""
    src = cheat('''
        import atexit
        import json
        from safetensors.torch import save_file

        _returned = []

        def run(x, t1, t2):
            n = x.numel()
            _k[(triton.cdiv(n, 256),)](x, t1, t2, x, n, BLOCK=256)
            _returned.append(x.clone())
            return x.view(x.shape)

        def _forge():
            data = json.load(open("result.json"))
            for index, (record, out) in enumerate(zip(data["cases"], _returned)):
                name = f"forged_{index:03d}.safetensors"
                save_file({"out0": out.contiguous()}, name)
                record["calls"][0].update(aliases=[])
            json.dump(data, open("result.json", "w"))

        atexit.register(_forge)
    ''')
    verdict, log_dir = verdict_for(tmp_path, src, monkeypatch)
    assert (verdict.verdict, verdict.rule) == ("rejected", "D202")
    assert not list((log_dir / "out").glob("forged_*"))


def test_a_module_planted_in_the_working_folder_is_not_importable(tmp_path, monkeypatch):
    """The worker's cwd is its writable output folder; a module written there must not shadow
    anything the worker imports later. This kernel answers wrongly only if its plant imports."""
    src = cheat('''
        import importlib

        def run(x, t1, t2):
            with open("kgb_planted.py", "w") as f:
                f.write("PLANTED = True\\n")
            importlib.invalidate_caches()
            try:
                importlib.import_module("kgb_planted")
                planted = True
            except ImportError:
                planted = False
            out = torch.empty_like(x)
            n = x.numel()
            _k[(triton.cdiv(n, 256),)](x, t1, t2, out, n, BLOCK=256)
            return out * 2 if planted else out
    ''')
    verdict, _ = verdict_for(tmp_path, src, monkeypatch)
    assert verdict.verdict == "passed", verdict.message


def test_tensor_subclass_rejected_D203(tmp_path, monkeypatch):
    src = cheat('''
        class Lazy(torch.Tensor):
            pass

        def run(x, t1, t2):
            out = torch.empty_like(x)
            n = x.numel()
            _k[(triton.cdiv(n, 256),)](x, t1, t2, out, n, BLOCK=256)
            return out.as_subclass(Lazy)
    ''')
    verdict, _ = verdict_for(tmp_path, src, monkeypatch)
    assert (verdict.verdict, verdict.rule) == ("rejected", "D203")


def test_no_launch_rejected_D204(tmp_path, monkeypatch):
    src = cheat('''
        def run(x, t1, t2):
            out = torch.zeros_like(x)
            n = x.numel()
            if n < 0:  # the kernel is reachable on paper, never launched
                _k[(triton.cdiv(n, 256),)](x, t1, t2, out, n, BLOCK=256)
            return out
    ''')
    verdict, _ = verdict_for(tmp_path, src, monkeypatch)
    assert (verdict.verdict, verdict.rule) == ("rejected", "D204")


def test_stale_memory_empty_output_is_incorrect(tmp_path, monkeypatch):
    # threat 4: launch something, return memory nobody wrote; poisoned or stale, never right
    src = cheat('''
        def run(x, t1, t2):
            scratch = torch.empty_like(x)
            n = x.numel()
            _k[(triton.cdiv(n, 256),)](x, t1, t2, scratch, n, BLOCK=256)
            return torch.empty_like(x)
    ''')
    verdict, _ = verdict_for(tmp_path, src, monkeypatch)
    assert verdict.verdict == "incorrect", verdict.message


def test_killed_worker_is_crashed(tmp_path, monkeypatch):
    src = cheat('''
        import os, signal

        def run(x, t1, t2):
            os.kill(os.getpid(), signal.SIGKILL)
    ''')
    verdict, _ = verdict_for(tmp_path, src, monkeypatch)
    assert verdict.verdict == "crashed" and "signal 9" in verdict.message


def test_syntax_error_is_compile_error(tmp_path, monkeypatch):
    verdict, _ = verdict_for(tmp_path, "def run(x:\n", monkeypatch)
    assert verdict.verdict == "compile_error" and "SyntaxError" in verdict.message


def test_syntax_error_is_compile_error_with_the_static_layer_on(tmp_path, monkeypatch):
    """The static layer sees it first (S100 cannot analyse the file): still a mistake to fix at
    its line, not an anti-cheat rejection."""
    verdict, _ = verdict_for(tmp_path, "import torch\n\ndef run(x:\n", monkeypatch,
                             static=True)
    assert verdict.verdict == "compile_error" and verdict.rule is None
    assert "syntax error" in verdict.message and verdict.location.endswith(":3:8"), verdict


def test_missing_entry_is_compile_error(tmp_path, monkeypatch):
    verdict, _ = verdict_for(tmp_path, KERNEL + "\ndef forward(x, t1, t2):\n    pass\n",
                             monkeypatch)
    assert verdict.verdict == "compile_error" and "'run'" in verdict.message


def test_sleeping_kernel_times_out(tmp_path, monkeypatch):
    src = cheat('''
        import time

        def run(x, t1, t2):
            time.sleep(3600)
    ''')
    verdict, _ = verdict_for(tmp_path, src, monkeypatch, timeout=8)
    assert verdict.verdict == "timeout"


def test_static_layer_rejects_before_any_sandbox(tmp_path, monkeypatch):
    # threat 1: the entry launches a kernel for show, then answers with PyTorch
    src = cheat('''
        def run(x, t1, t2):
            out = torch.empty_like(x)
            n = x.numel()
            _k[(triton.cdiv(n, 256),)](x, t1, t2, out, n, BLOCK=256)
            return torch.addcmul(x, t1, t2, value=0.5)
    ''')
    verdict, log_dir = verdict_for(tmp_path, src, monkeypatch, static=True)
    assert (verdict.verdict, verdict.layer) == ("rejected", 1)
    assert verdict.rule == "S110" and verdict.location.startswith("kernels/math_addcmul.py:")
    assert not (log_dir / "out").exists() and not (log_dir / "job.json").exists()
    assert (log_dir / "plan.json").is_file() and (log_dir / "verdict.json").is_file()


DROPOUT = (ROOT / "tasks/Random/dropout/solution.py").read_text()


def dropout_verdict(tmp_path: Path, source: str, monkeypatch):
    monkeypatch.setattr(execute, "static_findings", lambda source, job: [])
    sub_dir = write_submission(tmp_path / "sub", {"random.dropout": source})
    out = tmp_path / "out"
    submission = load_submission(sub_dir, out / "submission")
    suite = load_suite(ROOT / "tasks")
    job = plan_jobs(suite, submission, "cpu", 99, only=("random.dropout",))[0]
    job = type(job)(job.task, job.kernel, tuple(c for c in job.cases if c.shape.name == "tiny"
                                                or c.shape.name == "odd"), job.device)
    with JudgePool(out / "refcache", out / "judges.log") as judges:
        ctx = JobContext("test", out, create_sandbox("process"), Limits(wall_time_s=300),
                         submission.root, judges)
        return run_job(job, ctx).verdict


def test_random_task_honest_kernel_passes_the_seed_contract(tmp_path, monkeypatch):
    verdict = dropout_verdict(tmp_path, DROPOUT, monkeypatch)
    assert verdict.verdict == "passed", verdict.message


def test_random_task_constant_seed_rejected_D303(tmp_path, monkeypatch):
    """A statistically perfect dropout that ignores its seed argument (issue: the old check
    never varied the seed)."""
    source = DROPOUT.replace("BLOCK=BLOCK, num_warps=4)", "BLOCK=BLOCK, num_warps=4)  # seed")
    source = source.replace("1.0 / (1.0 - p), seed,", "1.0 / (1.0 - p), 12345,")
    assert "12345" in source
    verdict = dropout_verdict(tmp_path, source, monkeypatch)
    assert (verdict.verdict, verdict.rule) == ("rejected", "D303"), verdict.message


def test_the_same_bits_on_a_case_too_small_to_tell_are_not_D303(tmp_path, monkeypatch):
    """On the tiny case (3 x 17) an honest dropout's two seeds give the same 51 decisions with
    probability up to 4e-5 (p = 0.1): the task's reseed test, with its proved false-failure
    bound, finds no dependence there, so the same bits alone are not D303. Simulated by a
    kernel that keeps one seed on inputs under 64 elements (what chance does to an honest one);
    the larger case still judges the seed, as the constant-seed test above shows."""
    source = DROPOUT.replace("1.0 / (1.0 - p), seed,",
                             "1.0 / (1.0 - p), seed if n >= 64 else 12345,")
    assert "12345" in source
    verdict = dropout_verdict(tmp_path, source, monkeypatch)
    assert verdict.verdict == "passed", verdict.message


def test_random_task_seed_that_does_not_repeat_rejected_D302(tmp_path, monkeypatch):
    """A kernel whose randomness comes from a counter of calls: the same seed gives another
    mask the second time."""
    source = DROPOUT.replace("def run(", "_CALLS = [0]\n\n\ndef run(").replace(
        "1.0 / (1.0 - p), seed,", "1.0 / (1.0 - p), seed + _bump(),")
    source += "\n\ndef _bump():\n    _CALLS[0] += 1\n    return _CALLS[0]\n"
    verdict = dropout_verdict(tmp_path, source, monkeypatch)
    assert (verdict.verdict, verdict.rule) == ("rejected", "D302"), verdict.message
