"""float8 outputs are compared in steps of their own grid (kgb.judge.compare): a tie flipped by
another float32 rounding passes, a truncating quantizer, a two-step error, NaN in the wrong
place and a wrong format fail."""

from __future__ import annotations

import pytest
import torch

from kgb.judge.compare import compare_outputs
from kgb.tasks.model import Tolerance

TOL = Tolerance(atol=1e-7, rtol=1e-6, rel_l2=1e-2, int_atol=1)


@pytest.mark.parametrize("fmt", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_one_step_passes_two_steps_and_truncation_fail(fmt):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4096, generator=g) * 50
    ref = x.to(fmt)
    bits = ref.view(torch.uint8).clone()
    flipped = bits.clone()
    flipped[:3] = torch.where(flipped[:3] % 2 == 0, flipped[:3] + 1, flipped[:3] - 1)
    assert compare_outputs([flipped.view(fmt)], [ref], TOL).passed
    two = bits.clone()
    two[7] = two[7] + 2 if two[7] % 128 < 100 else two[7] - 2
    result = compare_outputs([two.view(fmt)], [ref], TOL)
    assert not result.passed and "ulp" in result.message and "first at [7]" in result.message
    # truncation toward zero: within one step everywhere, wrong at about half the elements
    down = ref.view(torch.uint8).to(torch.int16)
    down = torch.where(x.abs() < ref.float().abs(), down - 1, down)
    down = torch.where((ref.view(torch.uint8) % 128) == 0, ref.view(torch.uint8).to(torch.int16),
                       down).to(torch.uint8).view(fmt)
    result = compare_outputs([down], [ref], TOL)
    assert not result.passed and "relative L2" in result.message


def test_nan_positions_and_the_format_are_exact():
    ref = torch.tensor([1.0, 2.0, float("nan"), -0.0]).to(torch.float8_e4m3fn)
    out = torch.tensor([1.0, float("nan"), float("nan"), 0.0]).to(torch.float8_e4m3fn)
    assert "NaN positions" in compare_outputs([out], [ref], TOL).message
    same = torch.tensor([1.0, 2.0, float("nan"), 0.0]).to(torch.float8_e4m3fn)
    assert compare_outputs([same], [ref], TOL).passed  # +0 and -0 are one value
    other = torch.tensor([1.0, 2.0, float("nan"), 0.0]).to(torch.float8_e5m2)
    assert "dtype" in compare_outputs([other], [ref], TOL).message
    exact = Tolerance(atol=0.0, rtol=0.0, rel_l2=0.0, int_atol=0)
    step = ref.view(torch.uint8).clone()
    step[0] += 1
    assert not compare_outputs([step.view(torch.float8_e4m3fn)], [ref], exact).passed


def test_the_near_equal_call_can_nudge_a_float8_input():
    """The anti-caching call halves one element of the largest floating input: a float8 one
    (an NVFP4 block-scale tensor) has no arithmetic of its own, so the worker crashed there."""
    from kgb.tasks.casegen import nudge

    scales = torch.tensor([4.0, 6.0, 0.0, 448.0]).to(torch.float8_e4m3fn)
    small = torch.ones(2)
    nudged = nudge((small, scales), perturb_seed=5)  # position 5 % 4 = 1
    assert nudged[0] is small
    assert nudged[1].float().tolist() == [4.0, 3.0, 0.0, 448.0]
    assert scales.float().tolist() == [4.0, 6.0, 0.0, 448.0]  # the original is untouched
    assert nudge((scales,), perturb_seed=2)[0].float().tolist() == [4.0, 6.0, 1.0, 448.0]
