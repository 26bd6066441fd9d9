"""Suite rates on hand-computed numbers (kgb.metrics): every task counts, missing included;
fast_p needs every correct kernel timed; gates fail closed."""

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


def test_rates_count_every_task():
    r = rates(JOBS)
    assert (r["tasks"], r["compiled"], r["correct"]) == (8, 5, 3)  # a b c g h ran
    assert r["compile_rate"] == 5 / 8 and r["correct_rate"] == 3 / 8
    assert r["correct_given_compiled"] == 3 / 5
    assert r["fast_p"]["fast_0"] == 3 / 8
    assert r["fast_p"]["fast_1"] == 2 / 8  # 2.0 and 1.2; 0.5 is correct but slower
    assert r["fast_p"]["fast_1.5"] == 1 / 8 and r["fast_p"]["fast_2"] == 0.0
    assert math.isclose(r["geomean_speedup_eager"], (2.0 * 0.5 * 1.2) ** (1 / 3))
    assert r["geomean_speedup_compile"] == 1.0


def test_fast_p_is_unknown_when_a_correct_kernel_has_no_time():
    r = rates([job("a", "passed", 2.0), job("b", "passed", None)])
    assert r["fast_p"]["fast_0"] == 1.0 and r["fast_p"]["fast_1"] is None
    assert rates([])["correct_rate"] is None and geomean([]) is None


def test_by_category():
    cats = by_category(JOBS)
    assert sorted(cats) == ["Loss", "Math"]
    assert (cats["Loss"]["tasks"], cats["Loss"]["correct"], cats["Loss"]["compiled"]) == (3, 1, 2)


def test_gates():
    gates = parse_gates("correct=0.5, fast_1=0.2,geomean=1")
    assert gates == {"correct_rate": 0.5, "fast_1": 0.2, "geomean_speedup_eager": 1.0}
    missed = below(rates(JOBS), gates)
    assert missed == ["correct_rate 0.375 < 0.5"]  # geomean 1.06 >= 1
    assert below(rates([job("a", "passed")]), {"fast_1": 0.1}) == [
        "fast_1 could not be measured in this run (< 0.1)"]
    for bad in ("", "speed=1", "correct"):
        with pytest.raises(ValueError):
            parse_gates(bad)
