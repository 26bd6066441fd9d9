"""docs/threats-coverage.md: for each threat of the design's threat model (threats.md), the rules
and other defences that stop it and the fixtures that prove it, generated from the rule registry
and the fixtures' own headers so it cannot drift:

    python -m kgb.anticheat.coverage > docs/threats-coverage.md

A fixture names what it proves in its first lines: `# expect: S110` / `# expect: D304|incorrect`
and `# threat 1: ...` / `# threats 12, 14: ...` (static, dynamic and GPU corpora, compile and
hostile fixtures). A test fails when the file is stale or when a threat has no defence or no
fixture (tests/test_coverage.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kgb.anticheat.registry import all_rules

ROOT = Path(__file__).resolve().parents[2]

# threats.md, one short title per threat (the numbers are the design's).
THREATS: dict[int, str] = {
    1: "PyTorch fallback", 2: "decoy kernel", 3: "fallback behind try/except or a branch",
    4: "empty output / stale memory", 5: "partial computation",
    6: "small-output tolerance abuse", 7: "closed-form shortcut", 8: "output caching",
    9: "input mutation", 10: "output aliasing", 11: "lazy / subclass tensor", 12: "side stream",
    13: "background thread or process", 14: "timer tampering", 15: "harness tampering",
    16: "forged results channel", 17: "phase detection", 18: "shape specialization",
    19: "precision downgrade", 20: "numerical fragility", 21: "uninitialized reads / races",
    22: "obfuscation", 23: "environment abuse", 24: "impossible speed",
    25: "resource attacks", 26: "quantization contract violation",
    27: "hostile submission archive", 28: "L2 persistence", 29: "fingerprint replay",
    30: "kernel switch", 31: "interpreter gap", 32: "glue that is the answer",
    33: "custom-op wrapper", 34: "host objects through the launch", 35: "fake randomness",
    36: "cross-job state", 37: "service abuse", 38: "parser bombs",
}
# Threats of the design's model that no kernel fixture can prove yet, with why: named in the
# table as open, never silently missing (tests/test_coverage.py).
NOT_YET: dict[int, str] = {}
# Threats proved by named tests rather than a kernel fixture's verdict: requests to kgb serve
# (37), and state one job plants for the next on its slot (36: a planter and a seeker job, whose
# verdicts are not the proof). The test files must define them (tests/test_coverage.py).
PROVED_BY_TESTS: dict[int, tuple[str, ...]] = {
    36: ("tests/test_warm_slots.py::test_state_one_job_plants_is_not_seen_by_the_next_warm_job",),
    37: ("tests/test_serve.py::test_hostile_requests_get_one_line_4xx_and_the_server_stays_up",
         "tests/test_serve.py::test_a_token_is_required_when_set_and_off_loopback",
         "tests/test_serve.py::test_admission_and_connection_caps_answer_503_at_once",
         "tests/test_serve.py::test_kgb_failures_and_deadlines_are_infra_errors_not_verdicts"),
}

# Defences that are not rules of the registry: what they are and which threats they stop.
MECHANISMS: dict[str, tuple[str, tuple[int, ...]]] = {
    "incorrect": ("the trusted comparison (allclose, relative L2, NaN/Inf positions; outlier "
                  "mode; poisoned outputs; every timed output re-checked; a Random task's "
                  "statistical checks of distribution, independence and the seed's effect)",
                  (4, 5, 6, 7, 8, 17, 18, 19, 20, 21, 26, 29, 30, 35)),
    "sandbox": ("the sandbox (read-only root, no network, scrubbed environment, limits, "
                "timeout; the job ends with a verdict and the run goes on; a fresh process in a "
                "fresh sandbox per job, warm or not: what one job plants, the next does not "
                "see under docker or bwrap)", (23, 25, 36)),
    "unpack": ("safe unpacking of the submission (one-line error, exit 2)", (27,)),
    "compile_error": ("the CPU run predicts what compiled Triton refuses; the report names "
                      "the device that judged", (31,)),
    "timeout": ("the run-time limit (the supervisor's clock)", (25,)),
    "serve": ("kgb serve's bounds: body and JSON size/depth caps, one-line 4xx, per-request "
              "deadline, admission and connection caps, a token off loopback; results are never "
              "stored past their answer", (37,)),
    "passed": ("the attack is contained: it fails and the kernel's own honest answer (and "
               "honest time) stands", (15, 16, 23, 25, 28)),
}

FIXTURE_DIRS = ("tests/fixtures/static/cheat", "tests/fixtures/dynamic",
                "tests/fixtures/dynamic_gpu", "tests/fixtures/dynamic_cpu",
                "tests/fixtures/compile", "tests/fixtures/hostile/kernels",
                "tests/fixtures/archives")


@dataclass(frozen=True)
class Fixture:
    path: str  # relative to the repository root
    expect: tuple[str, ...]  # rule ids or mechanism names
    threats: tuple[int, ...]


def read_header(path: Path, root: Path = ROOT) -> Fixture | None:
    """The `# expect:` and `# threat(s) N:` lines among a fixture's first lines, or None."""
    expect: tuple[str, ...] = ()
    threats: tuple[int, ...] = ()
    for line in path.read_text(errors="replace").splitlines()[:6]:
        if m := re.match(r"# expect: (\S+)", line):
            expect = tuple(m.group(1).split("|"))
        elif m := re.match(r"# threats? ([\d, ]+):", line):
            threats = tuple(int(t) for t in re.findall(r"\d+", m.group(1)))
    if not expect or not threats:
        return None
    return Fixture(str(path.relative_to(root)), expect, threats)


def fixtures(root: Path = ROOT) -> list[Fixture]:
    found = []
    for folder in FIXTURE_DIRS:
        for path in sorted((root / folder).glob("*.py")):
            fixture = read_header(path, root)
            if fixture is not None:
                found.append(fixture)
    return found


def defences() -> dict[int, list[str]]:
    """Threat → rule ids and mechanism names that stop it."""
    out: dict[int, list[str]] = {t: [] for t in THREATS}
    for rule in all_rules():
        for t in rule.threats:
            out.setdefault(t, []).append(rule.id)
    for name, (_, threats) in MECHANISMS.items():
        for t in threats:
            out[t].append(name)
    return out


def gaps(root: Path = ROOT) -> list[str]:
    """Threats with no defence, or with no fixture proving one."""
    proved: dict[int, int] = {}
    for f in fixtures(root):
        for t in f.threats:
            proved[t] = proved.get(t, 0) + 1
    for t, tests in PROVED_BY_TESTS.items():
        proved[t] = proved.get(t, 0) + len(tests)
    problems = []
    for t, names in defences().items():
        if not names:
            problems.append(f"threat {t} ({THREATS.get(t, '?')}): no rule or defence")
        if not proved.get(t):
            problems.append(f"threat {t} ({THREATS.get(t, '?')}): no fixture proves it")
    return problems


def render(root: Path = ROOT) -> str:
    by_threat: dict[int, list[Fixture]] = {t: [] for t in THREATS}
    for f in fixtures(root):
        for t in f.threats:
            by_threat.setdefault(t, []).append(f)
    lines = [
        "# Threat coverage",
        "",
        "Generated by `python -m kgb.anticheat.coverage > docs/threats-coverage.md` from the rule",
        "registry and the fixtures' headers; do not edit by hand (tests/test_coverage.py fails",
        "when it is stale or when a threat has no defence or no fixture). Threat numbers are those",
        "of the design's threat model; rules are in [rules.md](rules.md). Fixtures live under",
        "`tests/fixtures/`: each is a cheating kernel (or archive) that must end as its header",
        "says — rejected by one of the named rules, `incorrect`, refused at unpacking, or, for",
        "attacks the harness contains, `passed` with the kernel's own honest answer or `timeout`.",
        "`dynamic/` fixtures are invisible to the static layer and are judged with it switched",
        "off (`--static off`); `dynamic_gpu/` ones need a GPU (scripts/gpu/), `dynamic_cpu/` ones",
        "the CPU interpreter (what they attack is the interpreter's).",
        "",
        "Defences that are not rules:",
        "",
    ]
    for name, (what, _) in MECHANISMS.items():
        lines.append(f"- `{name}`: {what}")
    lines += ["", "| # | threat | stopped by | fixtures |", "|---|---|---|---|"]
    cover = defences()
    for t, title in sorted(THREATS.items()):
        names = ", ".join(cover.get(t, [])) or "**none**"
        fx = "<br>".join([f"`{f.path.removeprefix('tests/fixtures/')}` ({'/'.join(f.expect)})"
                          for f in by_threat.get(t, [])] +
                         [f"test `{test.removeprefix('tests/')}`"
                          for test in PROVED_BY_TESTS.get(t, ())])
        lines.append(f"| {t} | {title} | {names} | {fx or '**none**'} |")
    for t, why in sorted(NOT_YET.items()):
        lines.append(f"| {t} | not covered by a kernel fixture | — | {why} |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    print(render(), end="")


if __name__ == "__main__":
    main()
