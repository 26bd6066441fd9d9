"""The trusted comparison: allclose AND relative L2, exact NaN/Inf positions, integer slack."""

from __future__ import annotations

import math

import torch

from kgb.judge.compare import compare_outputs
from kgb.tasks.model import Tolerance

TOL = Tolerance(atol=1e-5, rtol=1e-5, rel_l2=1e-4)


def test_identical_outputs_pass_with_zero_error():
    ref = torch.randn(10, 7)
    c = compare_outputs([ref.clone()], [ref], TOL)
    assert c.passed and c.max_abs == 0.0 and c.rel_l2 == 0.0


def test_all_zeros_fail_on_tiny_outputs_thanks_to_rel_l2():
    # softmax over long rows: every value ~1e-6, well inside a loose atol (threat 6)
    gen = torch.Generator().manual_seed(0)  # unseeded, a 5-sigma draw once crossed the atol
    ref = torch.softmax(torch.randn(4, 100_000, generator=gen), dim=-1)
    loose = Tolerance(atol=1e-3, rtol=1e-3, rel_l2=1e-3)
    assert ref.max() < loose.atol  # the premise: every element passes allclose against zero
    c = compare_outputs([torch.zeros_like(ref)], [ref], loose)
    assert not c.passed and "relative L2" in c.message and math.isclose(c.rel_l2, 1.0)


def test_small_error_within_both_tests_passes():
    ref = torch.randn(100)
    c = compare_outputs([ref + 1e-7], [ref], TOL)
    assert c.passed and 0 < c.max_abs < 1e-6


def test_elementwise_outlier_fails_allclose():
    ref = torch.randn(1000)
    out = ref.clone()
    out[17] += 1.0
    c = compare_outputs([out], [ref], TOL)
    assert not c.passed and "1 of 1000 elements" in c.message


def test_nan_positions_must_match_exactly():
    ref = torch.tensor([1.0, float("nan"), 3.0])
    assert compare_outputs([ref.clone()], [ref], TOL).passed
    out = torch.tensor([1.0, 2.0, 3.0])
    c = compare_outputs([out], [ref], TOL)
    assert not c.passed and "NaN positions" in c.message
    c = compare_outputs([torch.tensor([1.0, float("nan"), float("nan")])], [ref], TOL)
    assert not c.passed


def test_inf_sign_matters():
    ref = torch.tensor([float("inf"), 1.0])
    c = compare_outputs([torch.tensor([float("-inf"), 1.0])], [ref], TOL)
    assert not c.passed and "Inf positions" in c.message


def test_shape_dtype_and_count_mismatch():
    ref = torch.zeros(2, 3)
    assert "shape" in compare_outputs([torch.zeros(3, 2)], [ref], TOL).message
    assert "dtype" in compare_outputs([torch.zeros(2, 3, dtype=torch.float16)], [ref], TOL).message
    assert "2 output(s)" in compare_outputs([ref, ref], [ref], TOL).message


def test_integer_outputs_allow_only_int_atol():
    ref = torch.tensor([1, -5, 127], dtype=torch.int8)
    off_by_one = torch.tensor([2, -5, 126], dtype=torch.int8)
    assert not compare_outputs([off_by_one], [ref], TOL).passed
    assert compare_outputs([off_by_one], [ref], Tolerance(0, 0, 1.0, int_atol=1)).passed
    off_by_two = torch.tensor([3, -5, 127], dtype=torch.int8)
    assert not compare_outputs([off_by_two], [ref], Tolerance(0, 0, 1.0, int_atol=1)).passed


def test_exact_mode_is_bitwise():
    ref = torch.tensor([1.0, 2.0])
    assert compare_outputs([ref.clone()], [ref], TOL, exact=True).passed
    assert not compare_outputs([ref + 1e-7], [ref], TOL, exact=True).passed


def test_second_output_checked_too():
    a, b = torch.randn(5), torch.randn(5)
    c = compare_outputs([a.clone(), b + 1], [a, b], TOL)
    assert not c.passed and c.message.startswith("output 1")


def test_integer_slack_cannot_hide_truncation():
    # per-token int8: rounding ties may flip by one, truncating everything must not pass
    x = torch.linspace(-126.4, 126.4, 4000, dtype=torch.float64)
    ref = torch.round(x).to(torch.int8)
    truncated = torch.trunc(x).to(torch.int8)
    tol = Tolerance(atol=0, rtol=0, rel_l2=5e-3, int_atol=1)
    assert compare_outputs([ref.clone()], [ref], tol).passed
    one_tie = ref.clone()
    one_tie[10] += 1
    assert compare_outputs([one_tie], [ref], tol).passed
    c = compare_outputs([truncated], [ref], tol)
    assert not c.passed and "relative L2" in c.message


def test_exact_comparison_of_non_contiguous_outputs():
    """A transposed output (or reference) is compared by value, not refused (seen by a suite
    helper: out.view(-1) raised on a non-contiguous tensor)."""
    ref = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    out = ref.t().contiguous().t()  # the same values, column-major
    assert not out.is_contiguous()
    assert compare_outputs([out], [ref], Tolerance(0, 0, 0), exact=True).passed
    assert not compare_outputs([out + 1], [ref], Tolerance(0, 0, 0), exact=True).passed


def test_a_mismatch_names_its_first_element_with_got_and_expected():
    ref = torch.zeros(3, 4)
    out = ref.clone()
    out[1, 2], out[2, 0] = 0.5, 0.25
    result = compare_outputs([out], [ref], Tolerance(atol=1e-3, rtol=0.0, rel_l2=1e-3))
    assert not result.passed
    assert "2 of 12 elements" in result.message
    assert "first at [1, 2]: got 0.5, expected 0" in result.message
    nan = ref.clone()
    nan[0, 3] = float("nan")
    assert "first at [0, 3]: got nan, expected 0" in compare_outputs(
        [nan], [ref], Tolerance(atol=1e-3, rtol=0.0, rel_l2=1e-3)).message
    ints = torch.tensor([[1, 2], [3, 4]])
    wrong = ints.clone()
    wrong[1, 1] = 9
    assert "first at [1, 1]: got 9, expected 4" in compare_outputs(
        [wrong], [ints], Tolerance(atol=0, rtol=0, rel_l2=0.0)).message


def test_slices_judge_like_the_whole_tensor():
    # GB outputs are compared a slice at a time (bounded device memory): the same verdict,
    # counts, first position and errors as one pass over the whole tensor
    from kgb.judge.compare import _compare_one

    gen = torch.Generator().manual_seed(3)
    ref = torch.randn(13, 11, generator=gen)
    cases = []
    near = ref + 1e-7
    cases.append(near)
    off = ref.clone()
    off[4, 5] += 1.0
    off[9, 2] -= 2.0
    cases.append(off)
    nan = ref.clone()
    nan[7, 3] = float("nan")
    cases.append(nan)
    inf_ref = ref.clone()
    inf_ref[2, 2] = float("inf")
    for out in cases:
        whole = _compare_one(out, ref, TOL, False, chunk=1 << 30)
        sliced = _compare_one(out, ref, TOL, False, chunk=7)
        assert whole == sliced or (whole.passed == sliced.passed and whole.message ==
                                   sliced.message and math.isclose(whole.rel_l2, sliced.rel_l2))
    sliced = _compare_one(off, ref, TOL, False, chunk=5)
    assert not sliced.passed and sliced.message.startswith("2 of 143 elements outside")
    assert "first at [4, 5]" in sliced.message and math.isclose(sliced.max_abs, 2.0, rel_tol=1e-6)
    missing_inf = _compare_one(ref, inf_ref, TOL, False, chunk=4)
    assert not missing_inf.passed and "+Inf positions differ in 1" in missing_inf.message
    ints = torch.arange(50)
    shifted = ints.clone()
    shifted[31] += 3
    counted = _compare_one(shifted, ints, Tolerance(atol=0, rtol=0, rel_l2=1e-3, int_atol=1),
                           False, chunk=8)
    assert not counted.passed and "1 of 50 integer elements" in counted.message
    assert "first at [31]" in counted.message


def _ill_conditioned(seed: int = 5):
    """tanh_backward's inputs as on a GPU's outlier case: y = tanh(x) and grad_out, a few grads
    amplified 1000x at positions where y is near +-1, so the answer cancels there."""
    gen = torch.Generator().manual_seed(seed)
    y = torch.tanh(1.5 * torch.randn(256, 257, generator=gen))
    g = torch.randn(256, 257, generator=gen)
    near_one = y.abs() > 0.999
    g = torch.where(near_one & (torch.rand(y.shape, generator=gen) < 0.5), g * 1000, g)
    return y, g


def _tanh_backward(y, g):
    return g * (1 - y * y)  # what PyTorch computes, in the inputs' precision


TIGHT = Tolerance(atol=1e-5, rtol=1e-5, rel_l2=1e-5)


def test_rounding_noise_where_the_answer_cancels_passes_against_a_float64_truth():
    # the H100 case: an honest kernel with another formula order misses atol=1e-5 at a few
    # ill-conditioned elements, as PyTorch's own float32 result does against the truth
    from kgb.judge.truth import compare_with_truth

    y, g = _ill_conditioned()
    expected = [_tanh_backward(y, g)]
    honest = [g * ((1 - y) * (1 + y))]  # equally valid, rounded differently
    plain = compare_outputs(honest, expected, TIGHT)
    assert not plain.passed and plain.numeric and "elements outside" in plain.message
    judged = compare_with_truth(honest, expected, (y, g), _tanh_backward, TIGHT)
    assert judged.passed, judged.message


def test_reduced_precision_still_fails_against_the_truth():
    from kgb.judge.truth import compare_with_truth

    y, g = _ill_conditioned()
    expected = [_tanh_backward(y, g)]
    bf16 = [_tanh_backward(y.bfloat16(), g.bfloat16()).float()]
    judged = compare_with_truth(bf16, expected, (y, g), _tanh_backward, TIGHT)
    assert not judged.passed and "too many for rounding noise" in judged.message
    # wrong only where the answer cancels: off by far more than rounding noise there
    sloppy = expected[0].clone()
    cancel = (y.abs() > 0.999) & (g.abs() > 100)
    sloppy[cancel] += 0.05 * g[cancel].sign()
    judged = compare_with_truth([sloppy], expected, (y, g), _tanh_backward, TIGHT)
    assert not judged.passed


def test_a_reference_that_rounds_on_purpose_widens_nothing():
    # the truth is trusted only where PyTorch's result is accurate overall: a reference whose
    # contract rounds through float16 differs from its float64 run, and an unrounded answer fails
    from kgb.judge.truth import compare_with_truth

    def rounds(x):
        return x.to(torch.float16).to(x.dtype) if x.dtype == torch.float32 else x

    x = torch.randn(64, 64, generator=torch.Generator().manual_seed(1))
    judged = compare_with_truth([x.clone()], [rounds(x)], (x,), rounds, TIGHT)
    assert not judged.passed and judged.numeric


def test_without_a_float64_truth_the_first_answer_stands_with_the_reason():
    from kgb.judge.truth import compare_with_truth

    def float32_only(y, g):
        if y.dtype != torch.float32:
            raise TypeError("no double kernel")
        return _tanh_backward(y, g)

    y, g = _ill_conditioned()
    expected = [float32_only(y, g)]
    judged = compare_with_truth([g * ((1 - y) * (1 + y))], expected, (y, g), float32_only, TIGHT)
    assert not judged.passed
    assert "no float64 truth to weigh rounding noise: TypeError: no double kernel" in \
        judged.message


def test_a_truth_that_runs_out_of_gpu_memory_is_kgbs_failure_not_an_answer():
    """Run 22: fusion.bias_gelu_backward's float64 truth ran out of GPU memory beside nine
    jobs, and the near-miss stood as `incorrect`. Every trusted measure the judge takes (the
    truth, its sensitivity, the baseline, the quotient) lets an out-of-memory go up to the
    judge's loop (gpu_memory: unverified, run again alone); any other failure still leaves
    the first answer standing."""
    import pytest

    from kgb.judge.truth import compare_with_truth

    y, g = _ill_conditioned()
    honest = [g * ((1 - y) * (1 + y))]
    expected = [_tanh_backward(y, g)]

    def fails_in(where, exc):
        def reference(y, g):
            if y.dtype == where:
                raise exc
            return _tanh_backward(y, g)
        return reference

    oom = torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 512.00 MiB")
    with pytest.raises(torch.OutOfMemoryError):
        compare_with_truth(honest, expected, (y, g), fails_in(torch.float64, oom), TIGHT)
    with pytest.raises(torch.OutOfMemoryError):
        compare_with_truth(honest, expected, (y, g), _tanh_backward, TIGHT,
                           baseline=fails_in(torch.float32, oom))
    with pytest.raises(RuntimeError, match="out of memory"):
        compare_with_truth(honest, expected, (y, g),
                           fails_in(torch.float64, RuntimeError("CUDA error: out of memory")),
                           TIGHT)
    other = compare_with_truth(honest, expected, (y, g),
                               fails_in(torch.float64, RuntimeError("no double kernel")), TIGHT)
    assert not other.passed and "no float64 truth" in other.message
    # the baseline failing for any other reason is left out, never a reason to pass or stop
    assert compare_with_truth(honest, expected, (y, g), _tanh_backward, TIGHT,
                              baseline=fails_in(torch.float32, ValueError("no"))).passed


def test_misses_where_the_answer_is_well_conditioned_are_never_forgiven():
    # an attacker who read the rule: on an outlier case, PyTorch's own worst error (at the
    # amplified, cancelling elements) is large, so a kernel that rounds every ordinary element
    # to ~fp16 precision would stay within 4x of it in the worst element and in norm; the
    # sensitivity of each element to one rounding of its inputs says those misses are not noise
    from kgb.judge.truth import compare_with_truth, float64_truth

    y, g = _ill_conditioned()
    g = torch.where(g.abs() > 100, g * 30, g)  # outliers that dominate PyTorch's worst error
    big = (torch.rand(y.shape, generator=torch.Generator().manual_seed(9)) < 0.01) & \
        (y.abs() < 0.9)
    g = torch.where(big, g * 1e4, g)  # large, well-conditioned answers: PyTorch is right overall
    expected = [_tanh_backward(y, g)]
    ordinary = g.abs() < 100
    sloppy = expected[0].clone()
    sloppy[ordinary] = sloppy[ordinary].half().float()
    judged = compare_with_truth([sloppy], expected, (y, g), _tanh_backward, TIGHT)
    assert not judged.passed and "too many for rounding noise" in judged.message
    # the premise: the worst-error and norm rule alone (within 4x of PyTorch's own distance to
    # the truth) passes it
    truth = float64_truth(_tanh_backward, (y, g))[0]
    err, own = (sloppy.double() - truth).abs(), (expected[0].double() - truth).abs()
    assert err.max() <= 4 * own.max() and err.norm() <= 4 * own.norm()


def test_a_reference_that_computes_in_float32_still_gets_a_float64_truth():
    # references upcast with .float() / dtype=torch.float32 and round back: were those honoured
    # under the truth, it would be PyTorch's float32 answer again and every honest kernel that
    # rounds differently "infinitely" worse than PyTorch (what an H100 run showed)
    from kgb.judge.truth import compare_with_truth, float64_truth

    def upcasting(y, g):
        acc = torch.zeros(y.shape, dtype=torch.float32)
        acc += g.float() * (1 - y.to(torch.float32) * y.to(dtype=torch.float32))
        return acc.to(g.dtype)

    y, g = _ill_conditioned()
    expected = [upcasting(y, g)]
    truth = float64_truth(upcasting, (y, g))[0]
    assert truth.dtype == torch.float64 and not torch.equal(truth, expected[0].double())
    assert torch.equal(truth, float64_truth(_tanh_backward, (y, g))[0])
    honest = [g * ((1 - y) * (1 + y))]
    assert not compare_outputs(honest, expected, TIGHT).passed
    judged = compare_with_truth(honest, expected, (y, g), upcasting, TIGHT)
    assert judged.passed, judged.message
    assert torch.get_default_dtype() == torch.float32  # the truth put the default back


def _layer_norm_rows(seed: int = 3):
    """Rows of a layer norm's input; row 0 constant (variance 0: the answer is all zeros, and
    the tiniest error in the mean is amplified by 1/sqrt(eps))."""
    x = 1.5 * torch.randn(6, 1000, generator=torch.Generator().manual_seed(seed))
    x[0] = -3.0
    return x


def _layer_norm_f64(x):
    return torch.nn.functional.layer_norm(x.double(), (x.shape[-1],), eps=1e-5).to(x.dtype)


def _layer_norm_f32(x, nudge_mean: bool):
    # a float32 two-pass kernel whose division is not correctly rounded (a GPU's div.full.f32):
    # the constant row's mean comes out one ulp off, as flash-linear-attention's did on an H100
    mean = x.sum(-1, keepdim=True) / x.shape[-1]
    if nudge_mean:
        mean = torch.nextafter(mean, torch.full_like(mean, -math.inf))
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + 1e-5)


def test_noise_amplified_where_the_answer_is_exactly_zero_passes_against_its_sensitivity():
    # the reference is float64 (PyTorch's only error is the final rounding), so the constant
    # row's 7.5e-5 from a one-ulp mean is many times PyTorch's worst error; but one rounding of
    # the inputs moves that row's answer by as much: within 4x of its sensitivity, it passes
    from kgb.judge.truth import compare_with_truth

    x = _layer_norm_rows()
    expected = [_layer_norm_f64(x)]
    tol = Tolerance(atol=5e-5, rtol=1e-5, rel_l2=1e-5)
    honest = [_layer_norm_f32(x, nudge_mean=True)]
    assert not compare_outputs(honest, expected, tol).passed
    judged = compare_with_truth(honest, expected, (x,), _layer_norm_f64, tol)
    assert judged.passed, judged.message
    # a kernel that gets that row wrong by more than noise fails: off by 1e-3
    wrong = honest[0].clone()
    wrong[0, :5] = 1e-3
    judged = compare_with_truth([wrong], expected, (x,), _layer_norm_f64, tol)
    assert not judged.passed and "more than 4x both its sensitivity" in judged.message


def _dot_rows(a, b):
    return (a * b).sum(-1)


def test_a_dominant_product_is_in_its_elements_sensitivity_however_the_signs_fall():
    """Each row's answer is one large product plus small ones: one rounding of the inputs moves
    it by ~u x that product. Moved together with independent random signs, the product's two
    factors cancel at about half the rows in a draw, a quarter over two draws (AWQ, session 30:
    an honest kernel failed on such rows). Each input is also moved alone: every row is seen."""
    from kgb.judge.truth import float64_truth, sensitivity

    gen = torch.Generator().manual_seed(7)
    a = torch.randn(256, 64, generator=gen) * 1e-2
    b = torch.randn(256, 64, generator=gen) * 1e-2
    a[:, 5], b[:, 5] = 30.0, 40.0  # the dominant term: 1200
    unit = torch.finfo(torch.float32).eps / 2
    values = float64_truth(_dot_rows, (a, b))
    assert not isinstance(values, str)
    (moved,) = sensitivity(_dot_rows, (a, b), values, unit)
    assert bool((moved >= 0.9 * unit * 1200).all()), int((moved < 0.9 * unit * 1200).sum())


def _sign_of_difference(pred, target):
    return torch.sign(pred - target) + 0.0 * pred


def test_an_input_moved_alone_across_a_discontinuity_is_no_rounding_noise():
    """pred == target exactly: an honest kernel's sign(pred - target) is 0 there, however it
    rounds. Moving pred alone makes the difference +-u pred and flips the sign at every tie: a
    jump, not a move that doubles with the perturbation, so it adds nothing (session 31:
    counted, it let l1_backward's sign(0) = 1 near-miss pass). The draws of both inputs at once
    flip it where their signs differ: ~3/4 of the ties over two draws, as before."""
    from kgb.judge.truth import float64_truth, sensitivity

    pred = torch.randn(4096, generator=torch.Generator().manual_seed(3))
    target = pred.clone()
    target[::2] += 1.0  # half the elements away from the tie
    unit = torch.finfo(torch.float32).eps / 2
    values = float64_truth(_sign_of_difference, (pred, target))
    assert not isinstance(values, str)
    (moved,) = sensitivity(_sign_of_difference, (pred, target), values, unit)
    flipped = float((moved[1::2] > 0.5).double().mean())
    assert 0.6 < flipped < 0.9, f"{flipped:.0%} of the ties' sign jumps counted as noise"
    assert float(moved[::2].max()) < 1e-3  # away from the tie nothing moves


def _noise_case(misses: int):
    """A float64 truth, PyTorch's result (the truth rounded once), a float32 baseline whose
    honest error reaches 5e-5 somewhere, and a kernel off by 1e-4 at `misses` elements where
    one rounding of the inputs moves the answer by almost nothing."""
    from kgb.judge.compare import Truth

    truth = torch.randn(100_000, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    expected = truth.float()
    base = (truth + 5e-5 * torch.sin(torch.arange(truth.numel(), dtype=torch.float64))).float()
    out = expected.clone()
    out[:misses] += 1e-4
    moves = torch.full_like(truth, 1e-9)
    return out, expected, Truth(truth, moves), Truth(truth, moves, base)


def test_an_honest_baselines_error_is_the_measure_of_noise_for_a_few_misses():
    # the H100 case: references in float64 leave PyTorch's own error at the final rounding;
    # the task's float32 baseline shows what honest float32 gets (index_add, attention
    # backward: a kernel's worst miss was within 1.6x of the baseline's worst error)
    tol = Tolerance(atol=1e-5, rtol=1e-5, rel_l2=1e-3)
    out, expected, without, with_baseline = _noise_case(misses=3)
    assert not compare_outputs([out], [expected], tol).passed
    alone = compare_outputs([out], [expected], tol, truth=[without])
    assert not alone.passed and "a miss of 0.0001: more than 4x" in alone.message
    assert compare_outputs([out], [expected], tol, truth=[with_baseline]).passed
    # the same error at many elements is not noise, whatever the baseline
    out, expected, _, with_baseline = _noise_case(misses=40)
    judged = compare_outputs([out], [expected], tol, truth=[with_baseline])
    assert not judged.passed and "40 misses beyond 4x" in judged.message


def test_a_baseline_that_fails_is_left_out():
    from kgb.judge.truth import baseline_outputs

    def broken(*_):
        raise RuntimeError("no kernel")

    expected = [torch.zeros(3)]
    assert baseline_outputs(broken, (torch.ones(3),), expected) == [None]
    assert baseline_outputs(lambda x: (x, x), (torch.ones(3),), expected) == [None]
    got = baseline_outputs(lambda x: x * 2, (torch.ones(3),), expected)
    assert torch.equal(got[0], torch.full((3,), 2.0))


def test_a_strict_task_forgives_nothing():
    # strict_tolerance: the bounds are the task's contract at every element (sigmoid_backward:
    # the gradient that survives x >> 0), so the rounding-noise rule does not apply
    from kgb.judge.truth import compare_with_truth

    y, g = _ill_conditioned()
    expected = [_tanh_backward(y, g)]
    honest = [g * ((1 - y) * (1 + y))]
    assert compare_with_truth(honest, expected, (y, g), _tanh_backward, TIGHT).passed
    strict = compare_with_truth(honest, expected, (y, g), _tanh_backward, TIGHT, strict=True)
    assert not strict.passed and "float64 truth" not in strict.message


def test_the_sigmoid_backward_task_is_strict():
    from pathlib import Path

    from kgb.tasks.loader import load_task

    root = Path(__file__).resolve().parents[1] / "tasks"
    assert load_task(root / "Activation" / "sigmoid_backward").strict_tolerance
    assert not load_task(root / "Activation" / "tanh_backward").strict_tolerance
