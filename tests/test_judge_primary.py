"""A case's primary outputs, as the judge loaded them, are what its later calls are judged
against: the same-values call bit for bit, the reseed call by the task's check_reseed, and an
encoded call's delta is patched onto them (kgb.judge.encoded). Nothing in the judge may change
them in place in between; a task's check that did would turn an honest kernel's same-values
call into a false nondeterminism failure (or a delta into other values). The judge sees such a
change (kgb.judge.judge._Loaded) and reports the calls `infra`, never judged; and every task's
own checks are held to leave the outputs they are given alone."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import torch
from conftest import ROOT
from safetensors.torch import save_file

from kgb import protocol as P
from kgb.judge.inplace import as_judged
from kgb.judge.judge import PRIMARY_CHANGED, judge_job
from kgb.judge.truth import as_outputs
from kgb.runner.plan import plan_cases
from kgb.tasks.casegen import call_inputs, fingerprint, load_module
from kgb.tasks.loader import load_suite, load_task

DROPOUT = ROOT / "tasks" / "Random" / "dropout"
KINDS = (P.CallKind.PRIMARY, P.CallKind.SAME_VALUES, P.CallKind.RESEED)

# Appended to a copy of dropout's reference.py: a check that judges right, then rescales the
# first outputs it is given in place (as a check that sorted or normalized them once for its
# statistics would).
CHECK_THAT_CHANGES_ITS_OUTPUTS = """

_check, _seen = check, []


def check(outputs, inputs):
    problems = _check(outputs, inputs)
    if not _seen:
        outputs[0].mul_(2)
    _seen.append(1)
    return problems
"""


def _judged(tmp_path: Path, folder: Path) -> dict[str, P.CallJudgement]:
    """judge_job on a job folder written here: dropout's tiny float32 standard case, its
    primary, same-values and reseed calls each answered by the reference's own draw (torch's
    dropout under the call's seed: the same seed gives the same bits)."""
    task = load_task(folder)
    inputs_module = load_module(task.inputs_path, "primary_inputs")
    reference = as_judged(load_module(task.reference_path, "primary_reference"), task.inplace)
    job = tmp_path / "job"
    (job / P.OUT_DIR).mkdir(parents=True)
    case = next(c for c in plan_cases(task, "cpu", 7) if c.id == "tiny-float32-standard")
    calls = tuple(next(c for c in case.calls if c.kind == kind) for kind in KINDS)
    spec = replace(case, calls=calls).spec()
    records = []
    for k, call in enumerate(calls):
        inputs = call_inputs(inputs_module, spec.dims, spec.dtype, spec.mode, spec.layout, (),
                             None, "cpu", call.seed, call.perturb_seed, call.seed_value)
        outputs = [t.contiguous() for t in as_outputs(reference.reference(*inputs))]
        save_file({P.OUTPUT_KEY.format(i): t for i, t in enumerate(outputs)},
                  str(job / P.OUT_DIR / P.output_file(0, k)))
        records.append(P.CallRecord(k, call.kind, P.CaseStatus.RETURNED,
                                    input_fingerprint=fingerprint(inputs), launches=1,
                                    output_types=(P.PLAIN_TENSOR,) * len(outputs),
                                    outputs=tuple(P.OutputMeta(str(t.dtype), tuple(t.shape),
                                                               "cpu") for t in outputs)))
    request = P.JudgeRequest(str(job), str(folder), "cpu", (spec,), (), None,
                             (P.CaseRecord(spec.id, tuple(records)),), baselines="none")
    (judged,) = judge_job(request, tmp_path / "refcache").cases
    return {str(c.kind): c for c in judged.calls}


def test_an_honest_draw_passes_its_primary_same_values_and_reseed_calls(tmp_path):
    calls = _judged(tmp_path, DROPOUT)
    assert [c.status for c in calls.values()] == ["passed"] * 3, calls


def test_a_check_that_changes_the_primary_in_place_makes_the_calls_infra_never_judged(tmp_path):
    """Without the guard the same-values call compared the honest draw with the doubled primary:
    `failed`, D302 nondeterminism, the kernel blamed for the judge's change (seen)."""
    folder = tmp_path / "dropout"
    shutil.copytree(DROPOUT, folder)
    with (folder / "reference.py").open("a") as f:
        f.write(CHECK_THAT_CHANGES_ITS_OUTPUTS)
    calls = _judged(tmp_path, folder)
    assert [c.status for c in calls.values()] == ["infra"] * 3, calls
    assert all(c.message == PRIMARY_CHANGED and c.rule is None for c in calls.values())


STATISTICAL = [t for t in load_suite(ROOT / "tasks").values() if t.compare == "statistical"]


@pytest.mark.parametrize("task", STATISTICAL, ids=[t.id for t in STATISTICAL])
def test_every_tasks_checks_leave_the_outputs_they_are_given_alone(task):
    """check and check_reseed of every statistical task, on the reference's own draws of the
    first CPU shape: the outputs are bit for bit what they were (the guard above would call a
    change `infra` on every case: the task would verify nothing)."""
    inputs_module = load_module(task.inputs_path, f"{task.id}_inputs")
    reference = load_module(task.reference_path, f"{task.id}_reference")
    case = next(c for c in plan_cases(task, "cpu", 7) if c.spec().skip is None)
    spec = case.spec()
    draws = []
    for seed_value in (None, 12345):
        inputs = call_inputs(inputs_module, spec.dims, spec.dtype, spec.mode, spec.layout, (),
                             None, "cpu", case.calls[0].seed, None, seed_value)
        outputs = tuple(t.contiguous() for t in as_outputs(reference.reference(*inputs)))
        draws.append((outputs, inputs, tuple((t.clone(), t._version) for t in outputs)))
    (first, inputs_first, kept_first), (second, inputs_second, kept_second) = draws
    reference.check(first, inputs_first)
    reference.check_reseed(first, inputs_first, second, inputs_second)
    for given, kept in ((first, kept_first), (second, kept_second)):
        assert all(torch.equal(a, b) and a._version == version
                   for a, (b, version) in zip(given, kept, strict=True)), task.id
