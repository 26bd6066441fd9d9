"""Layer 1 (static anti-cheat): every honest fixture and suite solution is clean, every cheating
fixture is caught by the rule it names, every rule has a cheat it catches, `kgb lint` keeps its
contract, docs/rules.md is fresh, and hostile input never crashes the analyser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, run_kgb
from kgb.anticheat.registry import all_rules
from kgb.anticheat.rules_doc import render_rules_markdown
from kgb.anticheat.static import MAX_BYTES, analyze, analyze_file
from kgb.anticheat.static.policy import glue_forbid
from kgb.cli import cli
from kgb.errors import TaskError
from kgb.tasks.loader import load_task

FIXTURES = ROOT / "tests" / "fixtures" / "static"
HONEST = sorted((FIXTURES / "honest").glob("*.py"))
CHEATS = sorted((FIXTURES / "cheat").glob("*.py"))
SOLUTIONS = sorted(ROOT.glob("tasks/*/*/solution.py"))
STATIC_RULES = [r for r in all_rules() if r.layer == 1]
# Threats a static rule can see (threats.md); 20, 21 and 27 only show at run time or in unpacking.
STATIC_THREATS = set(range(1, 27)) - {20, 21} | {32, 34}  # 32: a copy method on a re-layout
# task; 34: a host object passed as a tl.constexpr
LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+) (?P<rule>S\d{3}) (?P<msg>.+)$")


def _header(path: Path) -> tuple[str | None, set[int], dict]:
    """(expected rule, threats, analyze() keyword arguments) from a fixture's first lines:
    `# expect: S110`, `# threat 1: ...` / `# threats 3, 18: ...`, `# task: category=... forbid=a,b
    entry=... glue=views` (a glue policy adds its forbids, as kgb.anticheat.static.task_forbid)."""
    lines = path.read_text().splitlines()[:4]
    expect = None
    threats: set[int] = set()
    options: dict = {"entry": "run", "forbid": (), "category": None}
    for line in lines:
        if m := re.match(r"# expect: (S\d{3})$", line):
            expect = m.group(1)
        elif m := re.match(r"# threats? ([\d, ]+):", line):
            threats = {int(t) for t in m.group(1).replace(",", " ").split()}
        elif m := re.match(r"# task: (.+)$", line):
            for pair in m.group(1).split():
                key, value = pair.split("=", 1)
                options[key] = tuple(value.split(",")) if key == "forbid" else value
    options["forbid"] = tuple(options["forbid"]) + glue_forbid(options.pop("glue", "copies"))
    return expect, threats, options


def _show(findings) -> str:
    return "\n".join(f"{f.location()} {f.rule} {f.message}" for f in findings)


# -- corpus --------------------------------------------------------------------------------------

def test_corpus_sizes():
    assert len(CHEATS) >= 60, len(CHEATS)
    assert len(HONEST) >= 40, len(HONEST)


@pytest.mark.parametrize("path", HONEST, ids=lambda p: p.stem)
def test_honest_fixture_is_clean(path: Path):
    _, _, options = _header(path)
    findings = analyze(path.read_text(), str(path), **options)
    assert findings == [], _show(findings)


def test_every_honest_fixture_is_checked_on_a_gpu():
    # _gpu_check_honest.py runs each honest fixture on a GPU against PyTorch: a fixture the
    # analyser accepts must also be a kernel that works.
    cases = (FIXTURES / "_gpu_check_honest.py").read_text()
    missing = [p.stem for p in HONEST if f'"{p.stem}"' not in cases]
    assert not missing, f"add GPU check cases for {missing}"


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_suite_solution_is_clean(path: Path):
    try:
        task = load_task(path.parent)
    except TaskError:  # a task still being written: judge with the defaults
        task = None
    findings = analyze_file(path, task)
    assert findings == [], _show(findings)


@pytest.mark.parametrize("path", CHEATS, ids=lambda p: p.stem)
def test_cheat_fixture_is_caught_by_its_rule(path: Path):
    expect, threats, options = _header(path)
    assert expect is not None, f"{path.name}: first line must be `# expect: S1xx`"
    assert path.read_text().startswith(f"# expect: {expect}\n")
    assert threats, f"{path.name}: second line must say `# threat N: how it cheats`"
    findings = analyze(path.read_text(), str(path), **options)
    assert expect in {f.rule for f in findings}, _show(findings) or "no findings"


def test_every_static_rule_has_a_cheat_fixture():
    expected = {_header(p)[0] for p in CHEATS}
    missing = sorted(r.id for r in STATIC_RULES if r.id not in expected)
    assert not missing, f"rules without a cheating fixture: {missing}"
    assert expected <= {r.id for r in STATIC_RULES}


def test_cheat_corpus_covers_every_threat_a_static_rule_can_see():
    covered = set().union(*(_header(p)[1] for p in CHEATS))
    assert STATIC_THREATS <= covered, sorted(STATIC_THREATS - covered)


def test_every_static_rule_is_well_formed():
    assert len(STATIC_RULES) >= 20
    for rule in STATIC_RULES:
        assert re.fullmatch(r"S1\d\d", rule.id)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name)
        assert rule.threats and all(1 <= t <= 27 or t in STATIC_THREATS for t in rule.threats)
        assert rule.summary.endswith(".") and rule.hint.endswith(".")


# -- semantics worth pinning down ----------------------------------------------------------------

KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
'''


def _rules(source: str, **options) -> set[str]:
    options.setdefault("entry", "run")
    return {f.rule for f in analyze(source, "k.py", **options)}


def test_quantization_category_changes_the_rule():
    source = KERNEL + '''
def run(a, b):
    y = torch.empty_like(a)
    _k[(1,)](a, y, 1, BLOCK=16)
    return torch._int_mm(a, b)
'''
    assert "S110" in _rules(source) and "S115" not in _rules(source)
    assert "S115" in _rules(source, category="Quantization")


def test_task_forbid_matches_aliases_and_methods():
    source = KERNEL + '''
from torch import round as rnd

def run(x):
    y = torch.empty_like(x)
    _k[(1,)](x, y, 1, BLOCK=16)
    return y
'''
    assert _rules(source) == set()
    assert "S114" in _rules(source, forbid=("torch.round",))
    assert "S114" in _rules(KERNEL.replace("tl.load(", "tl.dot(0, 0) + tl.load(") + '''
def run(x):
    y = torch.empty_like(x)
    _k[(1,)](x, y, 1, BLOCK=16)
    return y
''', forbid=("tl.dot",))


def test_host_int_arithmetic_is_glue_but_tensor_arithmetic_is_not():
    honest = KERNEL + '''
def run(x, eps: float = 1e-5):
    M, N = x.shape
    n = M * N + 0 * int(eps)
    y = torch.empty_like(x)
    _k[(triton.cdiv(n, 128) * 1,)](x, y, n, BLOCK=max(16, 128 // 2))
    return y
'''
    assert _rules(honest) == set()
    assert "S111" in _rules(honest.replace("return y", "return y * 2"))
    assert "S111" in _rules(honest.replace("return y", "return _twice(y)") + '''
def _twice(t):
    return t + t
''')


def test_entry_can_be_a_class_alias_or_partial():
    body = '''
def _impl(x, BLOCK=16):
    y = torch.empty_like(x)
    _k[(1,)](x, y, 1, BLOCK=BLOCK)
    return y
'''
    assert _rules(KERNEL + body + "\nrun = _impl\n") == set()
    assert _rules(KERNEL + "import functools\n" + body +
                  "\nrun = functools.partial(_impl, BLOCK=32)\n") == set()
    assert _rules(KERNEL + body, entry="forward") == {"S101"}


def test_findings_are_positioned_and_sorted():
    source = KERNEL + '''
def run(x, w):
    y = torch.empty_like(x)
    _k[(1,)](x, y, 1, BLOCK=16)
    return x @ w + torch.exp(y)
'''
    findings = analyze(source, "k.py", "run")
    assert [(f.rule, f.line, f.col) for f in findings] == [
        ("S111", 16, 12), ("S112", 16, 12), ("S110", 16, 20)]  # 1-based columns
    assert all(f.file == "k.py" for f in findings)


def test_module_level_setup_and_init_state_are_allowed():
    source = KERNEL + '''
_CONFIGS = []
for block in (128, 256):
    _CONFIGS.append(block)


class _Launcher:
    def __init__(self, block):
        self.block = block

    def __call__(self, x):
        y = torch.empty_like(x)
        _k[(1,)](x, y, 1, BLOCK=self.block)
        return y


_LAUNCH = _Launcher(_CONFIGS[0])


def run(x):
    return _LAUNCH(x)
'''
    assert _rules(source) == set()
    remembers = source.replace("        y = torch.empty_like(x)\n",
                               "        self.last = x\n        y = torch.empty_like(x)\n")
    assert "S150" in _rules(remembers)


# -- hostile input -------------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    "x = " + "(" * 150 + "1" + ")" * 150,
    "x = " + "-" * 2000 + "1",
    "x = " + "a." * 1500 + "b",
    "def f(:\n",
    "\x00import os",
    "x = '\udcff'",
    "if True:\n" + "".join(" " * i + "if x:\n" for i in range(1, 120)) + " " * 120 + "pass\n",
    "class A(" * 50,
    "",
], ids=["parens", "unary", "attribute-chain", "syntax", "nul", "surrogate", "indent", "open",
        "empty"])
def test_hostile_source_is_a_finding_not_a_crash(source: str):
    findings = analyze(source, "evil.py", "run")
    assert findings and all(f.rule.startswith("S1") for f in findings)


def test_oversized_and_non_utf8_files(tmp_path: Path):
    big = tmp_path / "big.py"
    big.write_text("# " + "x" * (MAX_BYTES + 10))
    assert [f.rule for f in analyze_file(big)] == ["S100"]
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"x = '\xe9'\n")
    assert [f.rule for f in analyze_file(latin)] == ["S100"]
    not_text = b"def run(): pass"
    assert [f.rule for f in analyze(not_text, "b.py", "run")] == ["S100"]  # type: ignore


def test_analysis_never_runs_the_candidate(tmp_path: Path):
    marker = tmp_path / "ran"
    source = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n" + KERNEL
    findings = analyze(source, "k.py", "run")
    assert not marker.exists()
    assert {"S170", "S180", "S101"} <= {f.rule for f in findings}


# -- docs and CLI --------------------------------------------------------------------------------

def test_rules_doc_is_fresh():
    doc = ROOT / "docs" / "rules.md"
    assert doc.read_text() == render_rules_markdown(), \
        "docs/rules.md is stale: python -m kgb.anticheat.rules_doc > docs/rules.md"
    for rule in STATIC_RULES:
        assert f"| {rule.id} | `{rule.name}` |" in doc.read_text()


def test_lint_clean_file_exits_0():
    solution = ROOT / "tasks" / "Math" / "addcmul" / "solution.py"
    result = CliRunner().invoke(cli, ["lint", str(solution), "--task", "math.addcmul"])
    assert result.exit_code == 0, result.output
    assert result.output == ""


def test_lint_findings_exit_1_with_flake8_lines():
    cheat = FIXTURES / "cheat" / "s110_torch_matmul.py"
    result = CliRunner().invoke(cli, ["lint", str(cheat)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines and all(LINE.match(line) for line in lines), result.output
    first = LINE.match(lines[0])
    assert first["file"] == str(cheat) and first["rule"] == "S110"


def test_lint_json_output():
    import json

    cheat = FIXTURES / "cheat" / "s115_int_mm.py"
    result = CliRunner().invoke(cli, ["lint", str(cheat), "--json", "--task",
                                      "quantization.per_token_int8"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["task"] == "quantization.per_token_int8"
    assert "S115" in {f["rule"] for f in data["findings"]}
    assert all({"rule", "message", "file", "line", "col"} <= set(f) for f in data["findings"])


def test_lint_bad_input_exits_2(tmp_path: Path):
    missing = run_kgb("lint", tmp_path / "missing.py", timeout=120)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    unknown = run_kgb("lint", ROOT / "tasks" / "Math" / "addcmul" / "solution.py", "--task",
                      "math.addcmull", timeout=120)
    assert unknown.returncode == 2 and "math.addcmul" in unknown.stderr
    assert "Traceback" not in missing.stderr + unknown.stderr


def test_arguments_after_a_starred_launch_argument_are_not_matched_by_position():
    """`_k[grid](*ins, alpha, 1.0 - alpha)` does not hand `alpha` to the kernel's second
    (pointer) parameter: positions after `*ins` depend on its length. Matching them anyway
    took the float `alpha` for a tensor and refused honest host arithmetic (S111, seen on an
    honest RMSprop launch)."""
    honest = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _k(x_ptr, y_ptr, z_ptr, n, a, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + b, mask=mask)


def run(x):
    alpha = 0.9
    ins = [x.contiguous()]
    outs = [torch.empty_like(x), torch.empty_like(x)]
    _k[(1,)](*ins, *outs, x.numel(), alpha, 1.0 - alpha, BLOCK=16)
    return outs[0]
'''
    assert _rules(honest) == set()
    assert "S111" in _rules(honest.replace("1.0 - alpha,", "1.0 - x,"))  # a tensor still is


DEVICE_MOVES = KERNEL + '''
import torch.nn as nn

DEVICE = torch.device("cuda")
WHERE = "cuda:0"
HALF = torch.float16


class Box:
    device = torch.float16


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.device = torch.device("cuda")
        self.kind = torch.float16

    def forward(self, x, w):
        x = MOVE
        y = torch.empty_like(x)
        _k[(1,)](x, y, 1, BLOCK=16)
        torch.cuda.synchronize()
        return y
'''


@pytest.mark.parametrize("move", [
    "x.cuda()", "x.cuda(0)", "x.to('cuda')", "x.to('cuda:0', non_blocking=True)",
    "x.to(device='cuda')", "x.to(w.device)", "x.to(self.device)", "x.to(DEVICE)",
    "x.to(WHERE)", "x.to(torch.device('cuda', 0))", "x.cuda(device=x.device)"])
def test_a_move_to_the_device_is_glue(move: str):
    """Issue 28: `x.cuda()`, `x.to("cuda")` and friends (as generators write KernelBench
    answers) were S111 casts, and `torch.cuda.synchronize()` S120. A move to the device the
    inputs are on copies nothing (on a CPU run the worker's disguise makes CUDA the CPU), and
    waiting for the device hides no work from the harness's events."""
    assert _rules(DEVICE_MOVES.replace("MOVE", move), entry="ModelNew") == set()


@pytest.mark.parametrize("cast", [
    "x.to(HALF)", "x.to(torch.float64)", "x.to('cuda', torch.float16)",
    "x.to(device='cuda', dtype=torch.float16)", "x.to(w)", "x.to(w.dtype)",
    "x.to(self.kind)", "x.to(Box.device)", "x.to(*[HALF])", "x.to('float64')",
    "x.to('cuda', copy=True)", "x.cuda(memory_format=torch.channels_last)", "x.to()",
    "x.to(non_blocking=True)", "x.cpu()", "x.to(x.device if w is None else HALF)"])
def test_a_cast_spelled_as_a_move_stays_tensor_compute(cast: str):
    """Only arguments shown to name a device make `.to`/`.cuda` glue: a dtype (by name, by
    attribute, through a class of the file or a starred list), another tensor, a copy or a
    re-layout stays S111, so a device move is no way around the cast rule (threat 19)."""
    assert "S111" in _rules(DEVICE_MOVES.replace("MOVE", cast), entry="ModelNew")
