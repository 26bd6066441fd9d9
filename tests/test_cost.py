"""Token-cost accounting: every usage shape, every audit finding, pricing rules and the CLI,
each checked against figures computed by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from kgb.cost import build_section, cost_section, section_from_files
from kgb.cost.findings import CODES
from kgb.cost.inputs import Context
from kgb.cost.pricing import load_pricing
from kgb.cost.usage import TokenUsage, parse_log
from kgb.errors import BadInput
from conftest import build_real_report

FIX = Path(__file__).parent / "fixtures" / "cost"
MANIFEST_TASKS = ["k.a", "k.b", "k.c", "k.d"]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A real report (kgb's builder) with speedups: k.a 1.5x, k.b 0.8x, k.c incorrect, k.d
    compile_error; the manifest copy declares 400 output tokens."""
    return build_real_report(tmp_path_factory.mktemp("run"), [
        ("k.a", "passed", 1.5), ("k.b", "passed", 0.8), ("k.c", "incorrect", None),
        ("k.d", "compile_error", None)], MANIFEST_TASKS, {"output": 400})


@pytest.fixture(scope="module")
def report_no_speedups(tmp_path_factory) -> Path:
    """A real report from a run without timings (the CPU), and without a manifest copy."""
    return build_real_report(tmp_path_factory.mktemp("cpu"), [
        ("k.a", "passed", None), ("k.b", "rejected", None)])
PRICES = FIX / "pricing.toml"
REPO = Path(__file__).resolve().parent.parent
T0 = 1735689600.0  # 2025-01-01T00:00:00Z


def section(name: str, pricing: Path | None = PRICES, **ctx) -> dict:
    return build_section(FIX / name, pricing, Context(**ctx))


def codes(sec: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for f in sec["findings"]:
        out.setdefault(f["code"], []).append(f)
    return out


def write(tmp_path: Path, *lines: str | dict) -> Path:
    path = tmp_path / "tokens.jsonl"
    path.write_text("".join((json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines))
    return path


def call(**kw) -> dict:
    base = {"task": "t", "attempt": 1, "model": "gpt-4o", "started": T0, "ended": T0 + 1,
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
    base.update(kw)
    return base


# ---- usage shapes ---------------------------------------------------------------------------

def test_openai_chat_cached_is_inside_prompt_and_reasoning_inside_completion():
    log = parse_log(FIX / "openai_chat.jsonl")
    assert [r.line for r in log.records] == [1, 3]  # the blank line 2 is skipped, not counted
    # line 1: prompt 1000 of which 400 cached → 600 uncached; completion 300 incl. 120 reasoning
    assert log.records[0].usage == TokenUsage(600, 400, 0, 300, 120)
    # line 3: top-level usage, prompt_tokens_details null, no reasoning reported → None, not 0
    assert log.records[1].usage == TokenUsage(2000, 0, 0, 500, None)
    assert log.records[0].shape == "openai_chat"
    sec = section("openai_chat.jsonl")
    tok = sec["totals"]["tokens"]
    # total = prompt + completion (1300 + 2500): cached and reasoning are not counted twice
    assert tok == {"input": 2600, "cached": 400, "cache_write": 0, "output": 800,
                   "reasoning": 120, "reasoning_calls": 1, "total": 3800}
    # gpt-4o at 2 / 1 / 10 per M: 2600*2 + 400*1 + 800*10 = 13,600 µ$
    assert sec["totals"]["cost"] == {"usd": 0.0136, "status": "complete", "unpriced_tokens": 0}
    # 10 s + 5 s of calls; first start T0 to last end T0+25
    assert sec["totals"]["time"] == {"call_seconds": 15.0, "span_seconds": 25.0, "timed_calls": 2}
    assert sec["totals"]["attempts"] == 2
    assert sec["findings"] == []


def test_openai_responses_api():
    log = parse_log(FIX / "openai_responses.jsonl")
    # input 5000 incl. 3000 cached → 2000 uncached; output 2000 incl. 1500 reasoning
    assert log.records[0].usage == TokenUsage(2000, 3000, 0, 2000, 1500)
    assert log.records[0].shape == "openai_responses"
    sec = section("openai_responses.jsonl")
    assert sec["totals"]["tokens"]["total"] == 7000  # = input_tokens + output_tokens
    # o4-mini at 1 / 0.25 / 4: 2000*1 + 3000*0.25 + 2000*4 = 10,750 µ$
    assert sec["totals"]["cost"]["usd"] == 0.01075
    # 00:00+00:00 to 01:00+01:00 is the same instant: offsets are honoured
    assert sec["totals"]["time"]["call_seconds"] == 0.0


def test_anthropic_input_excludes_cache_reads_and_writes():
    log = parse_log(FIX / "anthropic.jsonl")
    assert log.records[0].usage == TokenUsage(50, 8000, 1000, 700, None)
    assert log.records[1].usage == TokenUsage(10, 0, 0, 20, None)  # null cache field → 0
    assert {r.shape for r in log.records} == {"anthropic"}
    sec = section("anthropic.jsonl")
    tok = sec["totals"]["tokens"]
    # total input = input + cache reads + cache writes = 60 + 8000 + 1000
    assert tok == {"input": 60, "cached": 8000, "cache_write": 1000, "output": 720,
                   "reasoning": None, "reasoning_calls": 0, "total": 9780}
    # 60*3 + 8000*0.3 + 1000*3.75 + 720*15 = 180 + 2400 + 3750 + 10800 = 17,130 µ$
    assert sec["totals"]["cost"]["usd"] == 0.01713
    # naive ISO 00:00:00 → 00:00:30 read as UTC: 30 s; epoch call 10 s; span T0 .. T0+110
    assert sec["totals"]["time"] == {"call_seconds": 40.0, "span_seconds": 110.0,
                                     "timed_calls": 2}
    rules = {m["model"]: m["rule"] for m in sec["pricing"]["models"]}
    assert rules == {"claude-sonnet-4-5": "exact", "claude-sonnet-4-5-20250929": "dated"}


def test_generic_form_has_disjoint_input_buckets():
    log = parse_log(FIX / "generic.jsonl")
    assert log.records[0].usage == TokenUsage(100, 10, 5, 40, 20)
    assert log.records[1].usage == TokenUsage(7, 0, 0, 3, None)
    assert log.records[0].attempt == "first"
    sec = section("generic.jsonl")
    assert sec["totals"]["tokens"]["total"] == 165  # 107 + 10 + 5 + 43
    # my-model at 1 / 0.5 / cache_write 2 / 3: 107 + 5 + 10 + 129 = 251 µ$
    assert sec["totals"]["cost"]["usd"] == 0.000251
    assert sec["totals"]["time"] == {"call_seconds": 3.0, "span_seconds": 11.0, "timed_calls": 2}
    rules = {m["model"]: m["rule"] for m in sec["pricing"]["models"]}
    assert rules == {"local/my-model": "exact+provider", "my-model": "exact"}
    assert [m["model"] for m in sec["by_model"]] == ["local/my-model", "my-model"]
    assert sec["totals"]["attempts"] == 2


def test_bare_input_output_tokens_reads_the_same_under_both_providers(tmp_path):
    log = parse_log(write(tmp_path, call(usage={"input_tokens": 30, "output_tokens": 4})))
    assert log.records[0].usage == TokenUsage(30, 0, 0, 4, None)
    assert log.records[0].shape == "input_output"


def test_mixed_provider_fields_are_refused(tmp_path):
    log = parse_log(write(
        tmp_path,
        call(usage={"prompt_tokens": 1, "completion_tokens": 1, "input_tokens": 1}),
        call(usage={"input_tokens": 1, "output_tokens": 1, "cache_read_input_tokens": 1,
                    "input_tokens_details": {"cached_tokens": 1}})))
    assert log.records == ()
    assert [i.code for i in log.issues] == ["T103", "T103"]


# ---- figures joined with verdicts -----------------------------------------------------------

def test_per_task_kernel_model_and_per_correct_and_fast_kernel(report):
    sec = section_from_files(FIX / "mixed.jsonl", PRICES, report, None)
    # gpt-4o: (1000+500+300)*2 + 500*1 + 300*10 = 7100; claude: 200*3 + 100*15 = 2100
    assert sec["totals"]["cost"]["usd"] == 0.0092
    assert sec["totals"]["tokens"]["total"] == 2900
    by_model = {m["model"]: m for m in sec["by_model"]}
    assert by_model["gpt-4o"]["cost"]["usd"] == 0.0071
    assert by_model["claude-sonnet-4-5"]["cost"]["usd"] == 0.0021
    by_task = {t["task"]: t for t in sec["by_task"]}
    # k.a: 1000*2 + 100*10 + 500*2 + 500*1 + 100*10 = 5500 µ$
    assert by_task["k.a"]["cost"]["usd"] == 0.0055
    assert by_task["k.a"]["attempts"] == 2
    assert by_task["k.a"]["time"] == {"call_seconds": 20.0, "span_seconds": 30.0, "timed_calls": 2}
    kernels = {k["task"]: k for k in sec["by_kernel"]["rows"]}
    assert list(kernels) == ["k.a", "k.b", "k.c", "k.d"]
    assert (kernels["k.a"]["verdict"], kernels["k.a"]["fast_1"]) == ("passed", True)
    assert (kernels["k.b"]["speedup"], kernels["k.b"]["fast_1"]) == (0.8, False)
    # k.d logged nothing: zero logged tokens, but its cost is unknown — never $0
    assert kernels["k.d"]["calls"] == 0
    assert kernels["k.d"]["cost"] == {"usd": None, "status": "no_calls", "unpriced_tokens": 0}
    # two passed kernels share the whole spend: 9200 µ$ / 2, 2900 tokens / 2
    assert sec["per_correct_kernel"] == {
        "available": True, "kernels": 2, "cost_usd": 0.0046, "cost_status": "complete",
        "tokens": {"input": 1000.0, "cached": 250.0, "cache_write": 0.0, "output": 200.0,
                   "total": 1450.0}}
    # one fast_1 kernel (k.a, 1.5x; k.b is 0.8x)
    assert sec["per_fast_1_kernel"]["kernels"] == 1
    assert sec["per_fast_1_kernel"]["cost_usd"] == 0.0092
    # 4 attempts (k.a 2, k.b 1, k.c 1) for 2 successes; passed kernels took (2 + 1) / 2
    aps = sec["attempts_per_success"]
    assert (aps["value"], aps["mean_attempts_of_passed"], aps["partial"]) == (2.0, 1.5, False)
    # declared output 400 in the report's manifest copy agrees with the log
    assert sec["declared"] == {"output": {"declared": 400, "logged": 400, "agrees": True}}
    assert set(codes(sec)) == {"T202"}  # only k.d, which logged nothing


def test_fast_1_unavailable_until_the_report_has_speedups(report_no_speedups):
    sec = section_from_files(FIX / "mixed.jsonl", PRICES, report_no_speedups, None)
    assert sec["per_fast_1_kernel"] == {"available": False, "kernels": None,
                                        "reason": "the report has no speedups yet"}
    assert sec["per_correct_kernel"]["kernels"] == 1
    # without a manifest copy, every non-missing job is a kernel: k.c is then unknown
    assert [f["task"] for f in codes(sec)["T201"]] == ["k.c"]


def test_fast_1_unavailable_when_a_passed_kernel_has_no_speedup():
    jobs = [{"task": "k.a", "verdict": "passed", "speedup_eager": 2.0},
            {"task": "k.b", "verdict": "passed"}]
    sec = section("mixed.jsonl", manifest_tasks=["k.a", "k.b", "k.c"], jobs=jobs)
    assert sec["per_fast_1_kernel"]["available"] is False
    assert "1 passed kernel(s) have no speedup" in sec["per_fast_1_kernel"]["reason"]


def test_no_kernel_passed_gives_unavailable_not_zero():
    jobs = [{"task": "k.a", "verdict": "incorrect", "speedup_eager": 3.0}]
    sec = section("mixed.jsonl", manifest_tasks=["k.a"], jobs=jobs)
    assert sec["per_correct_kernel"] == {"available": False, "reason": "no kernel passed",
                                         "kernels": 0}
    assert sec["per_fast_1_kernel"]["available"] is False
    assert sec["attempts_per_success"]["available"] is False


def test_without_manifest_or_report_joined_figures_say_why():
    sec = section("mixed.jsonl")
    for key in ("per_correct_kernel", "per_fast_1_kernel", "attempts_per_success"):
        assert sec[key]["available"] is False and "--report" in sec[key]["reason"]
    assert sec["by_kernel"]["rows"] == []
    assert {t["in_manifest"] for t in sec["by_task"]} == {None}


# ---- pricing --------------------------------------------------------------------------------

def test_unpriced_model_is_null_and_totals_are_partial(tmp_path):
    path = write(tmp_path, call(model="gpt-4o"), call(model="mystery", task="u"))
    sec = build_section(path, PRICES, Context())
    by_model = {m["model"]: m["cost"] for m in sec["by_model"]}
    assert by_model["mystery"] == {"usd": None, "status": "unpriced", "unpriced_tokens": 15}
    # gpt-4o: 10*2 + 5*10 = 70 µ$, a lower bound of the total
    assert sec["totals"]["cost"] == {"usd": 7e-05, "status": "partial", "unpriced_tokens": 15}
    assert codes(sec)["T208"][0]["lines"] == [2]


def test_missing_cached_price_leaves_those_tokens_unpriced(tmp_path):
    path = write(tmp_path, call(model="no-cache-price", usage={"input": 100, "output": 10,
                                                               "cached": 50}))
    cost = build_section(path, PRICES, Context())["totals"]["cost"]
    # 100*1 + 10*2 = 120 µ$ priced; the 50 cached tokens are not charged at 0 or at full price
    assert cost == {"usd": 0.00012, "status": "partial", "unpriced_tokens": 50}


def test_no_pricing_file_means_unpriced_everywhere():
    sec = section("mixed.jsonl", pricing=None)
    assert sec["totals"]["cost"] == {"usd": None, "status": "unpriced", "unpriced_tokens": 2900}
    assert codes(sec)["T208"][0]["count"] == 4


@pytest.mark.parametrize("name, expected", [
    ("gpt-4o", ("gpt-4o", "exact")),
    ("gpt-4o-2024-08-06", ("gpt-4o", "dated")),
    ("gpt-4o-0613", ("gpt-4o", "dated")),
    ("openai/gpt-4o", ("gpt-4o", "exact+provider")),
    ("gpt-4o-mini", None),  # never priced as gpt-4o: no bare prefix rule
    ("gpt-4o-2024-08-06-preview", None),
    ("big-fam", ("family-large", "alias")),
    ("big-fam@20250101", ("family-large", "dated")),
    ("fam-small", ("family", "prefix")),
    ("fam-large-v1", ("family", "prefix")),  # "fam-large-" beats "fam-"
    ("fam-large-v2-exp", ("family-large", "prefix")),  # "fam-large-v2" is the longest
    ("GPT-4O", None),  # case matters
])
def test_model_matching_rules(name, expected):
    found = load_pricing(PRICES).match(name)
    assert (None if found is None else (found.price.name, found.rule)) == expected


@pytest.mark.parametrize("text, message", [
    ("this is = not toml [", "not valid TOML"),
    ("[models.x]\ninput = 1\n", "`output`"),
    ("[models.x]\ninput = 1\noutput = -2\n", "must be a number >= 0"),
    ("[models.x]\ninput = 1\noutput = 2\ncached = 1\n", "unknown key"),
    ("[models.x]\ninput = 1\noutput = 2\n[models.y]\ninput = 1\noutput = 2\naliases = ['x']\n",
     "names both"),
    ("currency = 'EUR'\n[models.x]\ninput = 1\noutput = 2\n", "USD"),
    ("title = 'x'\n", "unknown top-level key"),
])
def test_bad_pricing_files_are_bad_input(tmp_path, text, message):
    path = tmp_path / "p.toml"
    path.write_text(text)
    with pytest.raises(BadInput, match=message):
        load_pricing(path)


def test_example_pricing_file_loads_and_says_it_is_an_example():
    path = REPO / "examples" / "pricing.example.toml"
    book = load_pricing(path)
    assert "EXAMPLE" in path.read_text() and "not authoritative" in book.note
    assert book.match("claude-sonnet-4-5-20250929") is not None


# ---- audit findings -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def audited() -> dict:
    return section("audit.jsonl", manifest_tasks=["k.a", "k.b", "k.c"],
                   declared={"input": 1, "output": 10 * 11, "bogus": 3})


def test_audit_counts_lines(audited):
    # lines 2..8 are unusable; every other line counts, findings or not
    assert audited["lines"] == {"read": 18, "used": 11, "excluded": 7}


@pytest.mark.parametrize("code, lines", [
    ("T101", [2, 3]),  # invalid JSON, not an object (two reasons → two findings, merged here)
    ("T102", [4]),  # no task
    ("T103", [5]),  # no known usage fields
    ("T104", [6]),  # negative prompt_tokens
    ("T105", [7]),  # completion_tokens 12.5
    ("T106", [8]),  # cached 200 > prompt 100
    ("T107", [9]),  # 20M tokens in one call (kept)
    ("T108", [10]),  # started "yesterday" (kept, untimed)
    ("T109", [11]),  # no attempt (kept)
    ("T110", [12]),  # total_tokens 999 != 110
    ("T201", [13]),  # task k.zzz not in the manifest
    ("T202", []),  # kernel k.c logged nothing
    ("T203", [1, 14]),  # request id r1 twice
    ("T204", [15]),  # ended 10 s before it started
    ("T205", [16, 17]),  # k.b attempt 5: 160..175 and 170..180 overlap
    ("T206", [18]),  # 50..60 after lines up to 180
    ("T208", [12]),  # mystery-model has no price
])
def test_each_audit_finding_has_its_lines(audited, code, lines):
    found = codes(audited)[code]
    assert sorted(n for f in found for n in f["lines"]) == lines
    assert all(f["severity"] == CODES[code].severity for f in found)


def test_audit_declared_totals(audited):
    found = [f["message"] for f in codes(audited)["T207"]]
    assert any("unknown key 'bogus'" in m for m in found)
    assert any(m.startswith("declared input tokens 1 ") for m in found)
    assert any("7 malformed line(s)" in m for m in found)
    assert audited["declared"]["output"]["agrees"] is True  # 11 used calls * 10 output tokens
    # the kernel and the unknown task's single call are findings; figures still count them
    assert audited["totals"]["calls"] == 11
    assert {f["task"] for f in codes(audited)["T202"]} == {"k.c"}


def test_audit_figures_follow_the_rules(audited):
    tot = audited["totals"]
    # the absurd line counts as logged; untimed lines (bad time, ended<started) are not timed
    assert tot["tokens"]["input"] == 20_000_000 + 10 * 100
    assert tot["time"]["timed_calls"] == 9
    assert tot["calls_without_attempt"] == 1
    # k.a: attempts 1, 2, 3; k.b: 1, 3, 4, 5, 6; k.zzz: 1
    assert tot["attempts"] == 9
    assert tot["cost"]["status"] == "partial"


def test_declared_input_may_include_cache(report):
    sec = section_from_files(FIX / "mixed.jsonl", PRICES, report, FIX / "manifest.toml")
    assert sec["declared"]["input"] == {"declared": 2500, "logged": 2000,
                                        "logged_including_cache": 2500, "agrees": True}
    assert sec["declared"]["cached"]["agrees"] is True
    assert [f["message"] for f in codes(sec)["T207"]] == [
        "declared output tokens 401 but the log sums to 400"]


def test_line_level_edge_cases(tmp_path):
    path = tmp_path / "tokens.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(call()).encode() + b"\n"  # BOM on line 1
                     + b"\n   \n"  # blank lines: skipped
                     + json.dumps(call(ended=T0 * 1000)).encode() + b"\n"  # epoch millis
                     + b'{"task": "\xff"}\n'  # not UTF-8
                     + json.dumps(call(usage={"prompt_tokens": True,
                                              "completion_tokens": 1})).encode() + b"\n"
                     + json.dumps(call(usage={"prompt_tokens": "10",
                                              "completion_tokens": 1})).encode())
    log = parse_log(path)
    assert log.lines == 5 and len(log.records) == 2
    assert [(i.line, i.code) for i in log.issues] == [(4, "T108"), (5, "T101"), (6, "T105"),
                                                       (7, "T105")]
    assert "milliseconds" in log.issues[0].reason
    assert log.records[1].started is None and log.records[1].ended is None


def test_findings_are_capped_but_counted(tmp_path):
    path = write(tmp_path, *(["nope"] * 250))
    sec = build_section(path, None, Context())
    (f,) = sec["findings"]
    assert (f["code"], f["count"], len(f["lines"])) == ("T101", 250, 100)


def test_missing_token_log_is_bad_input(tmp_path):
    with pytest.raises(BadInput, match="does not exist"):
        build_section(tmp_path / "nope.jsonl", None, Context())


# ---- the verify entry point and the CLI -----------------------------------------------------

def test_cost_section_is_json_and_matches_the_cli(capsys, monkeypatch, report):
    jobs = json.loads(report.read_text())["jobs"]
    sec = cost_section(FIX / "mixed.jsonl", PRICES, ["k.a", "k.b", "k.c", "k.d"], jobs,
                       {"output": 400})
    assert json.loads(json.dumps(sec)) == sec
    code, out, _ = run_cli(monkeypatch, capsys, "cost", str(FIX / "mixed.jsonl"), "--pricing",
                           str(PRICES), "--report", str(report), "--json")
    assert code == 0 and json.loads(out) == sec


def run_cli(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    from kgb.cli import main

    monkeypatch.setattr("sys.argv", ["kgb", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    captured = capsys.readouterr()
    return exc.value.code, captured.out, captured.err


def test_cli_csv_has_one_row_per_task(monkeypatch, capsys, report):
    code, out, _ = run_cli(monkeypatch, capsys, "cost", str(FIX / "mixed.jsonl"), "--pricing",
                           str(PRICES), "--report", str(report), "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["task"] for r in rows] == ["k.a", "k.b", "k.c", "k.d"]
    assert rows[0]["cost_usd"] == "0.0055" and rows[0]["verdict"] == "passed"
    assert rows[3]["cost_usd"] == "" and rows[3]["cost_status"] == "no_calls"
    assert rows[1]["reasoning"] == ""  # Anthropic does not report it: unknown, not 0


def test_cli_tables_exit_zero_with_findings(monkeypatch, capsys):
    code, out, _ = run_cli(monkeypatch, capsys, "cost", str(FIX / "audit.jsonl"), "--pricing",
                           str(PRICES), "--manifest", str(FIX / "manifest.toml"))
    assert code == 0
    assert "Findings" in out and "T203" in out and "partial" in out


@pytest.mark.parametrize("args, message", [
    (["missing.jsonl"], "does not exist"),
    ([str(FIX / "mixed.jsonl"), "--pricing", str(FIX / "pricing_invalid.toml")], "TOML"),
    ([str(FIX / "mixed.jsonl"), "--report", str(FIX / "report_broken.json")], "not valid JSON"),
    ([str(FIX / "mixed.jsonl"), "--report", str(FIX / "manifest.toml")], "not valid JSON"),
    ([str(FIX / "mixed.jsonl"), "--json", "--csv"], "exclusive"),
])
def test_cli_bad_input_exits_2(monkeypatch, capsys, args, message):
    code, out, err = run_cli(monkeypatch, capsys, "cost", *args)
    assert code == 2 and message in err and out == ""


def test_every_code_is_documented():
    doc = (REPO / "docs" / "cost.md").read_text()
    for code in CODES.values():
        assert f"`{code.code}`" in doc and code.name in doc, code.code


def test_many_findings_of_one_code_are_merged(tmp_path):
    # 60 attempts, each with two overlapping calls → 50 findings kept + one "and 10 more"
    lines = []
    for k in range(60):
        lines += [call(attempt=k, started=T0 + 100 * k, ended=T0 + 100 * k + 10),
                  call(attempt=k, started=T0 + 100 * k + 5, ended=T0 + 100 * k + 20)]
    sec = build_section(write(tmp_path, *lines), None, Context())
    found = codes(sec)["T205"]
    assert len(found) == 51
    assert found[-1]["message"].startswith("and 10 more") and found[-1]["count"] == 20


def test_parsing_leaves_the_garbage_collector_as_it_was():
    import gc

    parse_log(FIX / "mixed.jsonl")
    assert gc.isenabled()
