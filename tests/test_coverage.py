"""docs/threats-coverage.md is generated from the rule registry and the fixtures' headers: it
must be fresh, every threat must have a defence and a fixture, and every fixture must expect
an outcome kgb can give (a declared rule or a named defence)."""

from __future__ import annotations

from conftest import ROOT

from kgb.anticheat.coverage import (
    MECHANISMS,
    NOT_YET,
    PROVED_BY_TESTS,
    THREATS,
    fixtures,
    gaps,
    render,
)
from kgb.anticheat.registry import all_rules


def test_threats_coverage_doc_is_fresh():
    doc = ROOT / "docs" / "threats-coverage.md"
    assert doc.read_text() == render(), \
        "docs/threats-coverage.md is stale: python -m kgb.anticheat.coverage > " \
        "docs/threats-coverage.md"


def test_every_threat_has_a_defence_and_a_fixture():
    # Every threat number is in the table or named as open, with why.
    assert set(THREATS) | set(NOT_YET) == set(range(1, max(THREATS) + 1)) and len(THREATS) >= 32
    assert not set(THREATS) & set(NOT_YET)
    assert gaps() == []


def test_every_fixture_expects_an_outcome_kgb_can_give():
    known = {r.id for r in all_rules()} | set(MECHANISMS)
    found = fixtures()
    assert len(found) > 150
    bad = [(f.path, e) for f in found for e in f.expect if e not in known]
    assert not bad, bad
    assert all(1 <= t <= max(THREATS) for f in found for t in f.threats)


def test_threats_proved_by_tests_name_tests_that_exist():
    """Threat 37 (service abuse) is proved by kgb serve's hostile-request tests and 36
    (cross-job state) by the warm-slot planter/seeker test, not by a kernel's verdict."""
    assert {36, 37} <= set(PROVED_BY_TESTS) and not {36, 37} & set(NOT_YET)
    for tests in PROVED_BY_TESTS.values():
        for test in tests:
            path, name = test.split("::")
            assert f"def {name}(" in (ROOT / path).read_text(), test
