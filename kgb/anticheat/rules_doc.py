"""docs/rules.md, generated from the rule registry so the documentation cannot drift from the
code: `python -m kgb.anticheat.rules_doc > docs/rules.md` (tests fail when the file is stale)."""

from __future__ import annotations

import re

from kgb.anticheat.registry import LAYERS, Rule, all_rules

_INTRO = """\
# Anti-cheat rules

Generated from the rule registry (`kgb.anticheat.registry`) by
`python -m kgb.anticheat.rules_doc > docs/rules.md`; do not edit by hand. `kgb rules` prints the
same list. Threat numbers refer to the threat table in the design notes (`threats.md`).
Layer 1 runs before any GPU time (`kgb lint FILE --task ID` runs it alone); its policy decisions
are explained in [static-rules-decisions.md](static-rules-decisions.md).
"""


def _cell(text: str) -> str:
    # dunders in backticks so Markdown does not turn __globals__ into bold "globals"
    text = re.sub(r"(?<![`\w])(__\w+__)", r"`\1`", text)
    return text.replace("|", "\\|").replace("\n", " ")


def _table(rules: list[Rule]) -> list[str]:
    lines = ["| id | name | threats | what it catches | how an honest kernel avoids it |",
             "|---|---|---|---|---|"]
    for r in rules:
        threats = ", ".join(str(t) for t in r.threats)
        lines.append(f"| {r.id} | `{r.name}` | {threats} | {_cell(r.summary)} | {_cell(r.hint)} |")
    return lines


def render_rules_markdown() -> str:
    rules = all_rules()
    out = [_INTRO]
    for layer, title in sorted(LAYERS.items()):
        in_layer = [r for r in rules if r.layer == layer]
        if not in_layer:
            continue
        out.append(f"## Layer {layer}: {title} ({len(in_layer)} rules)\n")
        out.extend(_table(in_layer))
        out.append("")
    coverage: dict[int, list[str]] = {}
    for r in rules:
        for t in r.threats:
            coverage.setdefault(t, []).append(r.id)
    out.append("## Threat coverage\n")
    out.append("| threat | rules |")
    out.append("|---|---|")
    for threat in sorted(coverage):
        out.append(f"| {threat} | {', '.join(coverage[threat])} |")
    out.append("")
    return "\n".join(out)


def main() -> None:
    print(render_rules_markdown(), end="")


if __name__ == "__main__":
    main()
