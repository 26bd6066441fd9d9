"""The in-place output contract (task.toml `inplace`, docs/tasks.md "In-place tasks"): a task
names the inputs its entry updates in place, as real optimizers do; after each call the
worker takes those inputs' memory (aliases taken before the call) as the outputs, writes to
any OTHER input stay D201, and the judge and the suite-quality check run the reference on
clones. The cheating fixtures run the real pipeline (process sandbox, CPU interpreter) on the
tiny shape of optimizer.sgd_momentum_inplace."""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from conftest import ROOT, run_kgb, write_submission

from kgb.errors import TaskError
from kgb.judge.inplace import as_judged, out_of_place
from kgb.tasks.loader import load_suite, load_task
from kgb.tasks.model import PRECISIONS
from kgb.tasks.spec import render_spec
from kgb.worker.outputs import aliases, held_inplace, mutated

SGD = ROOT / "tasks/Optimizer/sgd_momentum_inplace"
TASK_ID = "optimizer.sgd_momentum_inplace"


# ------------------------------------------------------------------ the task field
def _with_inplace(tmp_path: Path, value: str) -> Path:
    folder = tmp_path / "sgd"
    shutil.copytree(SGD, folder)
    toml = folder / "task.toml"
    toml.write_text(re.sub(r"^inplace = .*$", value, toml.read_text(), flags=re.M))
    return folder


@pytest.mark.parametrize("value, message", [
    ('inplace = "p"', "inplace must be a list of 0-based input indices"),
    ("inplace = [0, -1]", "inplace must be a list of 0-based input indices"),
    ("inplace = [true]", "inplace must be a list of 0-based input indices"),
    ("inplace = [0, 0]", "inplace lists an input twice"),
    ("inplace = [0, 3]", "inplace index 3 is past the signature's 3 argument"),
])
def test_bad_inplace_values_are_one_clear_error(tmp_path, value, message):
    with pytest.raises(TaskError, match=re.escape(message)) as caught:
        load_task(_with_inplace(tmp_path, value))
    assert "\n" not in str(caught.value)


def test_the_contract_is_shown_to_generators():
    spec = render_spec(load_task(SGD))
    assert "Update IN PLACE the memory of these inputs: p, buf" in spec
    assert "Do not modify the inputs." not in spec
    assert "Do not modify the inputs." in render_spec(load_task(ROOT / "tasks/Math/addcmul"))


# ------------------------------------------------------------------ worker evidence
def test_only_the_declared_pairs_are_exempt_from_aliasing_and_mutation():
    p, g, buf = torch.zeros(4), torch.zeros(4), torch.zeros(4)
    inputs = (p, g, buf, 3)
    before = [t.clone() if isinstance(t, torch.Tensor) else None for t in inputs]
    held = held_inplace(inputs, (0, 2))
    p += 1
    buf += 1
    g += 1  # not declared
    assert mutated(inputs, before, (0, 2)) == (1,)
    assert mutated(inputs, before) == (0, 1, 2)
    assert aliases(held, inputs, (0, 2)) == ()
    assert aliases(held, inputs) == ((0, 0), (1, 2))
    # an output that is another input than its own is still aliasing (D202)
    assert aliases((g.detach(), buf.detach()), inputs, (0, 2)) == ((0, 1),)


def test_held_aliases_keep_the_memory_handed_over():
    """`p.data = fresh` (or `p.set_(fresh)`) rebinds the input instead of writing it: the
    tensor object then shows the answer, the alias the memory kgb handed over, unchanged."""
    p, q = torch.zeros(4), torch.zeros(4)
    (alias,) = held_inplace((p,), (0,))
    (alias_q,) = held_inplace((q,), (0,))
    p.data = torch.ones(4)
    q.set_(torch.ones(4))
    assert torch.equal(p, torch.ones(4)) and torch.equal(alias, torch.zeros(4))
    assert torch.equal(alias_q, torch.zeros(4))


# ------------------------------------------------------------------ the judge
def test_the_reference_runs_on_clones_and_its_declared_inputs_are_the_outputs():
    import importlib.util

    spec = importlib.util.spec_from_file_location("sgd_ref", SGD / "reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    p, g, buf = torch.randn(3, 5), torch.randn(3, 5), torch.randn(3, 5)
    kept = (p.clone(), g.clone(), buf.clone())
    judged = as_judged(module, (0, 2))
    p_new, buf_new = judged.reference(p, g, buf)
    assert all(torch.equal(a, b) for a, b in zip((p, g, buf), kept))  # judge's inputs untouched
    assert torch.allclose(buf_new, 0.9 * buf + 0.9 * (g + 5e-4 * p))
    assert torch.allclose(p_new, p - 0.01 * buf_new)
    assert judged.baseline(p, g, buf)[0].shape == p.shape
    assert as_judged(module, ()) is module  # out-of-place tasks are untouched
    assert out_of_place(lambda x: x.add_(1), (0,))(p)[0].data_ptr() != p.data_ptr()


# ------------------------------------------------------------------ suite quality
def test_quality_probes_leave_inputs_unchanged_and_catch_an_out_of_place_solution(tmp_path):
    from kgb.suite import quality as Q

    task = load_task(SGD)
    probe = Q.TaskProbe(task)
    cases = Q._cases(task, False)
    assert Q.check_degenerate(probe, cases) == []
    case = cases[0]
    inputs = probe.make(case)
    unchanged = [inputs[i].clone() for i in task.inplace]  # the in-place "passthrough"
    assert probe.judge(unchanged, inputs, case.dtype) is not None
    folder = tmp_path / "sgd"
    shutil.copytree(SGD, folder)
    (folder / "solution.py").write_text(OUT_OF_PLACE)
    problems = Q.check_solution(Q.TaskProbe(load_task(folder)), cases[:1])
    assert problems and "solution fails" in problems[0].what
    (folder / "solution.py").write_text(WRITES_G)
    problems = Q.check_solution(Q.TaskProbe(load_task(folder)), cases[:1])
    assert any("modifies input 1" in p.what for p in problems)


# ------------------------------------------------------------------ the pipeline
KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _k(p_ptr, g_ptr, buf_ptr, p_out, buf_out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    p = tl.load(p_ptr + offs, mask=m).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=m).to(tl.float32)
    buf = tl.load(buf_ptr + offs, mask=m).to(tl.float32)
    d = g + 5e-4 * p
    buf = 0.9 * buf + 0.9 * d
    tl.store(buf_out + offs, buf.to(buf_out.dtype.element_ty), mask=m)
    tl.store(p_out + offs, (p - 0.01 * buf).to(p_out.dtype.element_ty), mask=m)
'''

# Right values, in new tensors: p and buf are left as they were.
OUT_OF_PLACE = KERNEL + textwrap.dedent('''
    def run(p, g, buf):
        p_new, buf_new = torch.empty_like(p), torch.empty_like(buf)
        _k[(triton.cdiv(p.numel(), 64),)](p, g, buf, p_new, buf_new, p.numel(), BLOCK=64)
        return p_new, buf_new
''')

# In place, and the gradient zeroed too (an undeclared input).
WRITES_G = KERNEL + textwrap.dedent('''
    @triton.jit
    def _zero(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.zeros([BLOCK], tl.float32).to(x_ptr.dtype.element_ty),
                 mask=offs < n)


    def run(p, g, buf):
        _k[(triton.cdiv(p.numel(), 64),)](p, g, buf, p, buf, p.numel(), BLOCK=64)
        _zero[(triton.cdiv(g.numel(), 64),)](g, g.numel(), BLOCK=64)
''')

# In place over the first half of the elements only.
HALF = KERNEL + textwrap.dedent('''
    def run(p, g, buf):
        half = p.numel() // 2
        _k[(triton.cdiv(half, 64),)](p, g, buf, p, buf, half, BLOCK=64)
''')

# The answer in fresh tensors, then the inputs rebound to them (not written in place):
# `.data =` dispatches no op the trace sees (`set_` would be D206), and the tensor objects
# kgb handed over now hold the answer; their memory does not.
REBOUND = KERNEL + textwrap.dedent('''
    def run(p, g, buf):
        p_new, buf_new = torch.empty_like(p), torch.empty_like(buf)
        _k[(triton.cdiv(p.numel(), 64),)](p, g, buf, p_new, buf_new, p.numel(), BLOCK=64)
        p.data = p_new
        buf.data = buf_new
''')


def _verdict(tmp_path: Path, source: str, monkeypatch, folder: Path = SGD,
             task_id: str = TASK_ID,
             keep: tuple[str, ...] = ("tiny-float32-standard", "tiny-bfloat16-outlier")):
    from kgb.runner import execute
    from kgb.runner.execute import JobContext, run_job
    from kgb.runner.judge_pool import JudgePool
    from kgb.runner.plan import plan_jobs
    from kgb.sandbox import Limits, create_sandbox
    from kgb.submission import load_submission

    monkeypatch.setattr(execute, "static_findings", lambda source, job: [])
    sub_dir = write_submission(tmp_path / "sub", {task_id: source})
    out = tmp_path / "out"
    submission = load_submission(sub_dir, out / "submission")
    suite = {task_id: load_task(folder)}  # not the whole suite: others' tasks may be mid-edit
    job = plan_jobs(suite, submission, "cpu", 4321, only=(task_id,))[0]
    # `keep`: a job is ~15 s on 2 cores
    job = type(job)(job.task, job.kernel, tuple(c for c in job.cases if c.id in keep),
                    job.device)
    with JudgePool(out / "refcache", out / "judges.log") as judges:
        ctx = JobContext("test", out, create_sandbox("process"), Limits(wall_time_s=300),
                         submission.root, judges)
        return run_job(job, ctx).verdict


@pytest.mark.slow
def test_honest_in_place_kernel_passes(tmp_path, monkeypatch):
    verdict = _verdict(tmp_path, (SGD / "solution.py").read_text(), monkeypatch)
    assert verdict.verdict == "passed", verdict.message
    assert verdict.coverage()["passed"] == verdict.coverage()["cases"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("source, verdict, rule", [
    (WRITES_G, "rejected", "D201"),
    (OUT_OF_PLACE, "incorrect", None),
    (HALF, "incorrect", None),
    (REBOUND, "incorrect", None),  # the alias shows the memory kgb handed over
], ids=["writes-undeclared-input", "fresh-tensors", "half-in-place", "rebinds-inputs"])
def test_in_place_cheats_do_not_pass(tmp_path, monkeypatch, source, verdict, rule):
    got = _verdict(tmp_path, source, monkeypatch)
    assert got.verdict != "passed", got.message
    if verdict is not None:
        assert got.verdict == verdict, got.message
    if rule is not None:
        assert got.rule == rule, got.message


# ------------------------------------------------------------------ precision coverage
def test_tasks_list_tags_precisions_and_counts_them():
    done = run_kgb("tasks", "list", "--json", "--summary")
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    suite = load_suite(ROOT / "tasks")
    tags = {t["id"]: t["precisions"] for t in listing["tasks"]}
    assert tags[TASK_ID] == ["fp32", "fp16", "bf16"]
    assert listing["tasks"][0]["inplace"] is not None
    counts = listing["summary"]["precisions"]
    assert set(counts) == set(PRECISIONS)
    for p in PRECISIONS:
        assert counts[p] == sum(p in t.precisions for t in suite.values())
        assert counts[p] > 0, f"no task exercises {p}"


def test_the_docs_precision_table_is_in_step_with_the_suite():
    from kgb.tasks.coverage import in_docs, precision_table

    text = (ROOT / "docs/tasks.md").read_text()
    table = precision_table(load_suite(ROOT / "tasks").values())
    assert in_docs(text, table) == text, ("docs/tasks.md's precision table is stale: run "
                                          "`python -m kgb.tasks.coverage --write`")


INPLACE_OPTIMIZERS = ("sgd_momentum_inplace", "adam_inplace", "lamb", "adafactor",
                      # converted from out of place: the real optimizers update in place
                      "adagrad", "adam_l2", "adamw_step", "ema_weights", "lion",
                      "rmsprop_centered", "sgd_nesterov", "clip_grad_norm",
                      # added in place (issue 27)
                      "adamax", "nadam", "radam", "adadelta", "sgd_nesterov_multi_tensor",
                      "muon")


@pytest.mark.parametrize("name", INPLACE_OPTIMIZERS)
def test_in_place_optimizer_tasks_meet_the_suite_bar(name):
    from kgb.tasks.cost_model import evaluate
    from kgb.tasks.model import SHAPE_TAGS

    task = load_task(ROOT / "tasks/Optimizer" / name)
    assert task.inplace and "IN PLACE" in task.description
    assert {tag for s in task.shapes for tag in s.tags} == set(SHAPE_TAGS)
    cpu = task.shapes_for("cpu")
    assert any("tiny" in s.tags for s in cpu) and any("non-pow2" in s.tags for s in cpu)
    assert any(s.gpu_only for s in task.shapes)
    for shape in task.shapes:
        values = dict(shape.dims, itemsize=2)
        assert evaluate(task.flops, values) > 0 and evaluate(task.bytes, values) > 0
    assert (task.folder / "solution.py").is_file()
    optimizers = {p.parent.name for p in (ROOT / "tasks/Optimizer").glob("*/task.toml")}
    assert len(optimizers) >= 18


def test_every_optimizer_task_updates_in_place_and_its_reference_writes_every_declared_input():
    """Issue 27: optimizers in place where the real ones are. A reference that forgot one
    `copy_` would hand the judge that input unchanged as the expected answer."""
    import importlib.util

    for toml in sorted((ROOT / "tasks/Optimizer").glob("*/task.toml")):
        task = load_task(toml.parent)
        assert task.inplace, f"{task.id} is out of place"
        shape = next(s for s in task.shapes_for("cpu") if "tiny" in s.tags)
        modules = []
        for name in ("inputs", "reference"):
            spec = importlib.util.spec_from_file_location(f"q_{name}", task.folder / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            modules.append(module)
        written = set()
        for seed in range(4):  # clip_grad_norm leaves g as it is when its norm is below 1
            gen = torch.Generator().manual_seed(seed)
            inputs = modules[0].make_inputs(dict(shape.dims), "float32", gen, "standard")
            kept = [v.clone() if isinstance(v, torch.Tensor) else v for v in inputs]
            outputs = as_judged(modules[1], task.inplace).reference(*inputs)
            for i, v in enumerate(inputs):  # the judge's inputs are never changed
                assert not isinstance(v, torch.Tensor) or torch.equal(v, kept[i]), (task.id, i)
            for k, i in enumerate(task.inplace):
                assert outputs[k].data_ptr() != inputs[i].data_ptr()
                if not torch.equal(outputs[k], kept[i]):
                    written.add(i)
        assert written == set(task.inplace), f"{task.id}: an input is never written"


def test_no_optimizer_case_is_answered_by_the_inputs_left_unchanged():
    """The ghost call (every Triton launch a no-op) must come out wrong on EVERY standard case,
    and for an in-place task the ghost's answer is the declared inputs as they were given. A
    case whose right answer is those inputs (seen: ema_weights in bfloat16 at the 0.9999 cap,
    an update below the rounding) was D301 for an honest kernel; the judge now calls it
    inconclusive (kgb.judge.ghost), but such a case is still one the ghost check does not
    cover. The suite-quality passthrough probe only needs one failing case; this asks it of
    every case, several seeds, of every in-place task (the Optimizers and
    fusion.decode_attention_kv_append)."""
    from kgb.suite import quality as Q

    tomls = sorted((ROOT / "tasks").glob("*/*/task.toml"))
    inplace = [t for t in tomls if re.search(r"^inplace = \[", t.read_text(), flags=re.M)]
    assert len(inplace) >= 19
    for toml in inplace:
        probe = Q.TaskProbe(load_task(toml.parent))
        for seed in range(4):
            for case in Q._cases(probe.task, False, seed=seed):
                if case.mode != "standard":
                    continue
                inputs = probe.make(case)
                unchanged = [inputs[i].clone() for i in probe.task.inplace]
                assert probe.judge(unchanged, inputs, case.dtype) is not None, \
                    f"{probe.task.id} {case.id} seed {seed}: the unchanged inputs pass"


# ------------------------------------------------------------------ the ghost call (D301)
# The judge decides D301 itself where the idle answer (the in-place inputs as given) is
# already right (kgb.judge.ghost): a copy of ema_weights whose bfloat16 cases sit at the 0.9999
# cap, where the update is below bfloat16's rounding (the case the task's inputs now avoid).
EMA = ROOT / "tasks/Optimizer/ema_weights"
EMA_ID = "optimizer.ema_weights"


def _ema_at_cap(tmp_path: Path) -> Path:
    folder = tmp_path / "ema_weights"
    shutil.copytree(EMA, folder)
    source = (folder / "inputs.py").read_text()
    line = "        step = step % 464\n"
    assert line in source
    (folder / "inputs.py").write_text(source.replace(
        line, '        step = 999999 if dtype == "bfloat16" else step % 464\n'))
    return folder


def _judged(tmp_path: Path, folder: Path, ghosts: dict[str, str]):
    """judge_job on a job folder written here: per tiny standard case named in `ghosts`, a
    primary call answered right and a ghost call answered as named: "idle" (the in-place
    inputs as given), "right" (the reference's answer), "wrong" (zeros)."""
    from safetensors.torch import save_file

    from kgb import protocol as P
    from kgb.judge.judge import judge_job
    from kgb.runner.plan import plan_cases
    from kgb.tasks.casegen import call_inputs, fingerprint, load_module

    task = load_task(folder)
    inputs_module = load_module(task.inputs_path, "ghost_inputs")
    reference = as_judged(load_module(task.reference_path, "ghost_reference"), task.inplace)
    job = tmp_path / "job"
    (job / P.OUT_DIR).mkdir(parents=True)
    specs, claims = [], []
    cases = [c for c in plan_cases(task, "cpu", 99) if c.id in ghosts]
    for ci, case in enumerate(cases):
        calls = (case.calls[0], next(c for c in case.calls if c.kind == P.CallKind.GHOST))
        spec = replace(case, calls=calls).spec()
        records = []
        for k, call in enumerate(calls):
            inputs = call_inputs(inputs_module, spec.dims, spec.dtype, spec.mode, spec.layout,
                                 (), None, "cpu", call.seed)
            right = [t.contiguous() for t in reference.reference(*inputs)]
            answer = {"idle": [inputs[i].clone() for i in task.inplace], "right": right,
                      "wrong": [torch.zeros_like(t) for t in right]}
            outputs = right if call.kind == P.CallKind.PRIMARY else answer[ghosts[case.id]]
            save_file({P.OUTPUT_KEY.format(i): t for i, t in enumerate(outputs)},
                      str(job / P.OUT_DIR / P.output_file(ci, k)))
            records.append(P.CallRecord(k, call.kind, P.CaseStatus.RETURNED,
                                        input_fingerprint=fingerprint(inputs), launches=1,
                                        output_types=(P.PLAIN_TENSOR,) * len(outputs),
                                        outputs=tuple(P.OutputMeta(str(t.dtype), tuple(t.shape),
                                                                   "cpu") for t in outputs)))
        specs.append(spec)
        claims.append(P.CaseRecord(spec.id, tuple(records)))
    request = P.JudgeRequest(str(job), str(folder), "cpu", tuple(specs), (), None,
                             tuple(claims), baselines="none")
    result = judge_job(request, tmp_path / "refcache")
    return {case.id: case.calls[1] for case in result.cases}


def test_a_ghost_answered_by_the_idle_inputs_is_inconclusive_never_d301(tmp_path):
    """The honest in-place kernel's ghost on a bfloat16 case at the cap leaves ema as given,
    which is the answer there: inconclusive, named, not D301 (it was D301 before); the float32
    case still tells. A ghost that is right with anything else is still D301."""
    folder = _ema_at_cap(tmp_path)
    ghost = _judged(tmp_path, folder, {"tiny-bfloat16-standard": "idle",
                                       "tiny-float32-standard": "idle"})
    capped, f32 = ghost["tiny-bfloat16-standard"], ghost["tiny-float32-standard"]
    assert capped.status == "passed" and capped.rule is None, capped
    assert capped.message.startswith("inconclusive") and "in-place inputs" in capped.message
    assert f32.status == "passed" and f32.message.endswith("as they must be"), f32
    right = _judged(tmp_path / "cheat", folder, {"tiny-bfloat16-standard": "idle",
                                                "tiny-float32-standard": "right"})
    assert right["tiny-float32-standard"].rule == "D301"


def test_a_job_no_ghost_of_which_can_tell_is_unverified_never_passed(tmp_path):
    """Fail closed: every ghost inconclusive -> INFRA (the job is unverified, the suite's side
    named), even for a right primary; a wrong ghost on the same case is evidence as before."""
    folder = _ema_at_cap(tmp_path)
    (ghost,) = _judged(tmp_path, folder, {"tiny-bfloat16-standard": "idle"}).values()
    assert ghost.status == "infra" and "could not run" in ghost.message, ghost
    (ghost,) = _judged(tmp_path / "wrong", folder, {"tiny-bfloat16-standard": "wrong"}).values()
    assert ghost.status == "passed" and ghost.rule is None


def test_idle_answers_of_out_of_place_tasks():
    from kgb.judge.ghost import idle_answer

    x = torch.randn(3, 4)
    assert idle_answer([torch.zeros(3, 4)], (x,), ()) == "zeros"
    assert idle_answer([x.clone()], (torch.ones(2), x), ()) == "input 1 passed through"
    assert idle_answer([x + 1], (x,), ()) is None  # computed: a right ghost of it is D301
    assert idle_answer([x.clone(), torch.zeros(2)], (x,), ()) == \
        "input 0 passed through, zeros"
    assert idle_answer([x.clone()], (x, x), (1,)) == "the in-place inputs as given"
    assert idle_answer([x + 1], (x, x), (1,)) is None


# Launches a kernel that writes ema back as it was: the update is never made.
DO_NOTHING = """
import triton
import triton.language as tl


@triton.jit
def _same(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


def run(ema, p, step: int):
    _same[(triton.cdiv(ema.numel(), 64),)](ema, ema.numel(), BLOCK=64)
"""


@pytest.mark.slow
@pytest.mark.parametrize("honest", [True, False], ids=["honest", "do-nothing"])
def test_the_pipeline_on_a_task_whose_idle_answer_is_right_on_one_case(tmp_path, monkeypatch,
                                                                       honest):
    """The whole pipeline on the capped ema_weights copy, a case that can tell (float32) and
    one that cannot (bfloat16 at the cap): the honest kernel passes (it was rejected D301
    before the judge knew idle answers); a kernel that launches but never updates is incorrect
    on the case that tells."""
    folder = _ema_at_cap(tmp_path)
    source = (EMA / "solution.py").read_text() if honest else DO_NOTHING
    got = _verdict(tmp_path, source, monkeypatch, folder, EMA_ID,
                   ("tiny-float32-standard", "tiny-bfloat16-standard"))
    if honest:
        assert got.verdict == "passed", got.message
    else:
        assert got.verdict == "incorrect" and "tiny-float32-standard" in got.message, got.message
