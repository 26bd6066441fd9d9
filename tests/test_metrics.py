"""Suite rates on hand-computed numbers (kgb.metrics): over the submitted kernels, missing tasks
apart as the coverage; fast_p needs every correct kernel timed; gates fail closed."""

from __future__ import annotations

import math

import pytest

from kgb.metrics.suite import below, by_category, parse_gates, rates
from kgb.metrics.speed import geomean


def job(task, verdict, speedup=None, layer=None, category="Math", compiled=None):
    return {"task": task, "verdict": verdict, "speedup_eager": speedup, "layer": layer,
            "category": category, "speedup_compile": compiled}


JOBS = [job("a", "passed", 2.0, compiled=1.0), job("b", "passed", 0.5),
        job("c", "incorrect"), job("d", "compile_error"), job("e", "missing"),
        job("f", "rejected", layer=1, category="Loss"), job("g", "rejected", layer=3,
                                                             category="Loss"),
        job("h", "passed", 1.2, category="Loss")]


def test_rates_are_over_the_submitted_kernels_with_the_coverage_apart():
    r = rates(JOBS)
    assert (r["tasks"], r["compiled"], r["correct"]) == (7, 5, 3)  # a b c g h ran; e missing
    assert (r["suite_tasks"], r["coverage"]) == (8, 7 / 8)
    assert r["compile_rate"] == 5 / 7 and r["correct_rate"] == 3 / 7
    assert r["correct_given_compiled"] == 3 / 5
    assert r["fast_p"]["fast_0"] == 3 / 7
    assert r["fast_p"]["fast_1"] == 2 / 7  # 2.0 and 1.2; 0.5 is correct but slower
    assert r["fast_p"]["fast_1.5"] == 1 / 7 and r["fast_p"]["fast_2"] == 0.0
    assert math.isclose(r["geomean_speedup_eager"], (2.0 * 0.5 * 1.2) ** (1 / 3))
    assert r["geomean_speedup_compile"] == 1.0


def test_fast_p_is_unknown_when_a_correct_kernel_has_no_time():
    r = rates([job("a", "passed", 2.0), job("b", "passed", None)])
    assert r["fast_p"]["fast_0"] == 1.0 and r["fast_p"]["fast_1"] is None
    assert rates([])["correct_rate"] is None and geomean([]) is None


def test_an_untimed_run_has_no_fast_p_even_when_nothing_passed():
    """A CPU run where nothing passed printed `fast_1 0%` (null once something passed)."""
    failed = [job("a", "incorrect"), job("b", "crashed")]
    assert rates(failed)["fast_p"]["fast_1"] == 0.0  # a timed run: 0 of 2 are fast, a fact
    untimed = rates(failed, timed=False)
    assert untimed["fast_p"]["fast_1"] is None and untimed["fast_p"]["fast_0"] == 0.0
    assert rates([job("a", "passed")], timed=False)["fast_p"]["fast_1"] is None


def test_by_category():
    cats = by_category(JOBS + [job("z", "missing", category="Random")])
    assert sorted(cats) == ["Loss", "Math"]  # Random has no kernel: no rate, not 0 %
    assert (cats["Loss"]["tasks"], cats["Loss"]["correct"], cats["Loss"]["compiled"]) == (3, 1, 2)
    assert cats["Math"]["tasks"] == 4 and cats["Math"]["coverage"] == 4 / 5


def test_gates():
    gates = parse_gates("correct=0.5, fast_1=0.2,geomean=1")
    assert gates == {"correct_rate": 0.5, "fast_1": 0.2, "geomean_speedup_eager": 1.0}
    missed = below(rates(JOBS), gates)
    assert missed == ["correct_rate 0.429 < 0.5"]  # geomean 1.06 >= 1
    assert below(rates(JOBS), parse_gates("coverage=1")) == ["coverage 0.875 < 1"]
    assert below(rates([job("a", "passed")]), {"fast_1": 0.1}) == [
        "fast_1 could not be measured in this run (< 0.1)"]
    for bad in ("", "speed=1", "correct"):
        with pytest.raises(ValueError):
            parse_gates(bad)
