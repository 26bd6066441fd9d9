"""Rules are data: an id, a layer, the threats it covers, what it catches and how to fix it.

Every check in kgb that can reject a kernel is declared here (or by a module that calls
`declare`) so that `kgb rules`, docs/rules.md and the coverage tests read one source of truth.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgb.protocol import Finding  # noqa: F401  (re-exported: rules produce Findings)

LAYERS = {1: "static", 2: "differential", 3: "consistency"}


@dataclass(frozen=True)
class Rule:
    id: str  # e.g. "S101" (static), "D201" (differential), "C301" (consistency)
    layer: int
    name: str  # short kebab-case name, e.g. "pytorch-compute"
    threats: tuple[int, ...]  # numbers from shared/threats.md
    summary: str  # one sentence: what it catches
    hint: str  # one sentence: how an honest kernel avoids it


_RULES: dict[str, Rule] = {}


def declare(rule: Rule) -> Rule:
    """Register a rule at import time; ids are unique for the life of the process."""
    existing = _RULES.get(rule.id)
    if existing is not None and existing != rule:
        raise ValueError(f"rule id {rule.id} declared twice with different contents")
    _RULES[rule.id] = rule
    return rule


def all_rules() -> list[Rule]:
    """Every rule of every layer, sorted by id (importing the layers declares them)."""
    import kgb.anticheat.runtime_rules
    import kgb.anticheat.static  # noqa: F401  (declares layer 1 rules)

    return sorted(_RULES.values(), key=lambda r: r.id)


def get_rule(rule_id: str) -> Rule:
    all_rules()
    return _RULES[rule_id]
