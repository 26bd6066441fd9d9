"""Threat 32, the suite-quality side: the glue-only answer (kgb.suite.glue_probe). Its builders
rebuild data-movement ops from glue bit for bit, using glue only; the probe builds the answer
where the reference is glue and nothing else; and the quality check flags a re-layout task whose
glue policy would let that answer pass."""

from __future__ import annotations

import os
import shutil

os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest
import torch
import torch.nn.functional as F
from conftest import ROOT
from torch.utils._python_dispatch import TorchDispatchMode

from kgb.suite.glue_builders import BUILDERS, builder_for
from kgb.suite.glue_probe import glue_answer, verdict
from kgb.worker.evidence import DispatchTrace


class _Check(TorchDispatchMode):
    """Runs every op for real (unseen by the trace) and, where a builder exists, the builder
    beside it (seen by the trace: it must dispatch glue only)."""

    def __init__(self, trace: DispatchTrace) -> None:
        super().__init__()
        self.trace = trace
        self.checked: list[tuple[str, torch.Tensor, torch.Tensor]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self.trace.paused += 1
        try:
            real = func(*args, **kwargs)
        finally:
            self.trace.paused -= 1
        build = builder_for(func)
        if build is not None:
            name = func._schema.name.split("::")[-1]
            overload = func._schema.overload_name
            self.checked.append((f"{name}.{overload}" if overload else name, real,
                                 build(*args, **kwargs)))
        return real


def _ops(x: torch.Tensor) -> None:
    """Every op BUILDERS knows, with awkward arguments (strided inputs, negative shifts and
    pads, batch dims, non-integer scales)."""
    g = torch.Generator().manual_seed(0)
    x4 = torch.randn(2, 6, 5, 7, generator=g).transpose(2, 3)  # strided
    torch.roll(x4, shifts=(1, -9), dims=(1, 3))
    torch.roll(x4, shifts=3)
    torch.flip(x4, dims=(0, 2))
    torch.cat([x4, x4[:, :2], x4[:, :1]], dim=1)
    torch.stack([x, x, x], dim=-1)
    F.pad(x4, (1, 2, -1, 3), value=2.5)
    for k in (1, 2, 3):
        t = torch.randn((2, 3) + (4, 5, 6)[:k], generator=g)
        F.pad(t, (1, 2, 2, 1, 1, 3)[:2 * k], mode="reflect")
        F.pad(t, (2, 1, 1, 3, 3, 0)[:2 * k], mode="replicate")
        F.interpolate(t, scale_factor=2, mode="nearest")
        F.interpolate(t, size=(7, 3, 9)[:k], mode="nearest")
        F.interpolate(t, scale_factor=1.7, mode="nearest")
        F.interpolate(t, size=(7, 3, 9)[:k], mode="nearest-exact")
    x.repeat(2, 1, 3)
    F.pixel_shuffle(torch.randn(2, 3, 18, 2, 3, generator=g), 3)
    F.pixel_unshuffle(x4.reshape(2, 3, 2, 7, 5)[..., :6, :4], 2)
    F.channel_shuffle(x4.contiguous(), 3)
    F.unfold(x4, kernel_size=(3, 2), dilation=(1, 2), padding=(1, 0), stride=(2, 1))
    F.unfold(x4[0], kernel_size=2)
    torch.slice_scatter(x4, x4[:, :, 1:5:2], dim=2, start=1, end=5, step=2)
    torch.select_scatter(x4, x4[:, :, :, 0], dim=3, index=2)
    torch.narrow_copy(x4, 2, 1, 3)
    torch.tril(x4, diagonal=-1)
    torch.triu(x4, diagonal=2)
    F.interpolate(x4, scale_factor=(1.5, 2.0), mode="nearest-exact")
    torch.ops.aten.native_channel_shuffle(x4.contiguous(), 2)


def test_every_builder_is_its_op_bit_for_bit_and_uses_glue_only():
    trace = DispatchTrace()
    mode = _Check(trace)
    trace.start()
    try:
        with mode, torch.no_grad():
            _ops(torch.randn(3, 4, 5))
    finally:
        ops = trace.stop()
    assert not ops, f"a builder dispatched compute: {ops}"
    wrong = [name for name, real, built in mode.checked
             if real.shape != built.shape or not torch.equal(real, built)]
    assert not wrong, wrong
    assert {name for name, _, _ in mode.checked} == set(BUILDERS)  # each one held to its op


def _permute(x):
    return x.permute(0, 2, 3, 1).contiguous()


def test_a_re_layout_reference_is_built_and_rejected_only_under_views():
    x = torch.randn(2, 3, 4, 5)
    answer = glue_answer(_permute, (x,))
    assert answer is not None and torch.equal(answer.outputs[0], _permute(x))
    assert answer.record.copy_ops == ("clone",) and answer.record.torch_ops == ()
    assert answer.record.launches == 1  # the Triton memcpy carried it out
    assert verdict(answer, "views") == "D206"
    assert verdict(answer, "copies") is None  # the hole threat 32 names


def test_data_movement_ops_are_rebuilt_and_lossless_casts_pass_unseen():
    x = torch.randn(1, 4, 5, 6, dtype=torch.float16)

    def padded_in_float64(t):  # what several references do: widen, move, narrow back
        return F.pad(t.double(), (1, 2, 2, 1), mode="reflect").to(t.dtype)

    answer = glue_answer(padded_in_float64, (x,))
    assert answer is not None and answer.built == ("reflection_pad2d",)
    assert torch.equal(answer.outputs[0], padded_in_float64(x))
    assert answer.record.torch_ops == () and "copy_" in answer.record.copy_ops


@pytest.mark.parametrize("reference", [
    lambda x: x * 2,  # compute
    lambda x: torch.softmax(x, dim=-1),
    lambda x: x.to(torch.float16),  # a rounding cast of float32 values is compute
    lambda x: x.index_select(1, torch.tensor([2, 0])),  # needs index values
], ids=["mul", "softmax", "rounding-cast", "index-select"])
def test_an_answer_that_needs_compute_cannot_be_built(reference):
    assert glue_answer(reference, (torch.randn(3, 4, 5),)) is None


def test_the_quality_check_flags_a_re_layout_task_that_allows_copies(tmp_path):
    """spatial.roll without its glue policy: the glue-only answer passes, and the check says
    so; with the policy (the suite's task.toml) it is rejected and the check is clean."""
    from kgb.suite.quality import TaskProbe, _cases, check_glue_only, prepare_interpreter
    from kgb.tasks.loader import load_task

    prepare_interpreter()
    folder = tmp_path / "roll"
    shutil.copytree(ROOT / "tasks/SpatialOps/roll", folder)
    toml = folder / "task.toml"
    text = toml.read_text()
    assert 'glue = "views"' in text
    suite_task = load_task(folder)
    cases = _cases(suite_task, False)[:1]
    assert check_glue_only(TaskProbe(suite_task), cases) == []
    toml.write_text("\n".join(line for line in text.splitlines()
                              if not line.startswith("glue =")) + "\n")
    loose = load_task(folder)
    assert loose.glue == "copies"
    problems = check_glue_only(TaskProbe(loose), cases)
    assert len(problems) == 1
    assert "a glue-only answer passes tiny-float32-standard: PyTorch's copy_ (rebuilding roll)" \
        in str(problems[0]) and 'set glue = "views"' in str(problems[0])
