"""Parser bombs (threat 38, issue 26.5): every file or message the trusted side parses from a
hostile source goes through one bounded reader (kgb.jsonfiles): size, nesting depth and number
magnitude capped. Whatever the bytes, each parser gives a value, or its one typed error — which
the caller turns into a verdict (D205) or one line and exit 2 — never a traceback, never a lost
run. The fuzz tests throw arbitrary bytes and structures at each parser; the end-to-end tests
put the bombs where an attacker would: a worker's result.json, a token log, a problem file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, run_kgb
from kgb import protocol as P

DEEP = "[" * 50_000 + "]" * 50_000  # what json and tomllib recurse on
HUGE = "1" + "0" * 400  # 10**400: an int Python reads, a float it cannot
HUGER = "1" + "0" * 5000  # over Python's int-string conversion limit (4300 digits)
HUGE_INT = 10 ** 400
T0 = 1_700_000_000


def token_line(**usage: object) -> str:
    usage = usage or {"prompt_tokens": 10, "completion_tokens": 5}
    return json.dumps({"task": "math.addcmul", "attempt": 1, "model": "gpt-4o",
                       "usage": usage, "started": T0, "ended": T0 + 1})


# ---------------------------------------------------------------- a worker's result.json
def _job_folder(tmp_path: Path, result_text: str) -> Path:
    """A job folder as a run leaves it after its worker wrote `result_text` (kgb's own
    writers for everything but the worker's file)."""
    from kgb.jsonfiles import write_json_atomic
    from kgb.runner.grade import PLAN_FILE

    job_dir = tmp_path / "out" / "jobs" / "math.addcmul"
    (job_dir / P.OUT_DIR).mkdir(parents=True)
    case = P.CaseSpec("a", "s", {"N": 4}, "float32", "standard", "contiguous",
                      (P.CallSpec(P.CallKind.PRIMARY, 7),))
    plan = P.PlanRecord("math.addcmul", "Math", "kernels/k.py", "cpu", 10.0, (case,))
    write_json_atomic(job_dir / PLAN_FILE, P.to_json(plan))
    write_json_atomic(job_dir / P.EXEC_FILE, P.to_json(P.ExecRecord("process", 0, False, 1.0,
                                                                    False)))
    (job_dir / P.OUT_DIR / P.RESULT_FILE).write_text(result_text)
    return job_dir


GOOD_RESULT = {"stage": "done", "cases": []}


@pytest.mark.parametrize("text, why", [
    (DEEP, "nested deeper"),
    (json.dumps(GOOD_RESULT)[:-1] + ', "compile_s": ' + HUGE + "}", "integer"),
    (json.dumps(GOOD_RESULT)[:-1] + ', "compile_s": ' + HUGER + "}", "integer"),
    (json.dumps(GOOD_RESULT)[:-1] + ', "compile_s": NaN}', "NaN"),
    (json.dumps(GOOD_RESULT)[:-1] + ', "compile_s": 1e400}', "finite"),
    ('{"stage": "done", "cases": [], "error": "' + "\\\"" * 1000, "not valid JSON"),
])
def test_a_hostile_result_file_is_rejected_D205_and_the_run_goes_on(tmp_path, text, why):
    from kgb.runner.grade import grade

    job_dir = _job_folder(tmp_path, text)
    record = grade(job_dir, tmp_path / "out")
    assert (record.verdict.verdict, record.verdict.rule) == ("rejected", "D205")
    assert why in record.verdict.message and "\n" not in record.verdict.message


def test_a_deep_verdict_file_is_not_a_finished_job(tmp_path):
    """--resume reads each job's verdict.json: a bomb there means "run it again", no crash."""
    from kgb.runner.journal import finished

    job_dir = _job_folder(tmp_path, json.dumps(GOOD_RESULT))
    (job_dir / P.VERDICT_FILE).write_text(DEEP)
    assert finished(job_dir) is None


def test_regrade_of_a_folder_with_a_deep_result_gives_the_verdict(tmp_path):
    from kgb.report.json_report import build_report, job_entry, write_report
    from kgb.runner.grade import grade
    from kgb.runner.journal import read_plan

    job_dir = _job_folder(tmp_path, json.dumps(GOOD_RESULT))
    out = tmp_path / "out"
    entry = job_entry(read_plan(job_dir), grade(job_dir, out))
    write_report(build_report({"environment": {}, "limits": {}, "seed": 1,
                               "submission": {"name": "t"}}, [entry], complete=True), out)
    (job_dir / P.OUT_DIR / P.RESULT_FILE).write_text(DEEP)  # the bomb, after the run
    done = run_kgb("report", out, "--regrade", "--json", timeout=120)
    assert done.returncode == 0, done.stderr
    (job,) = json.loads(done.stdout)["jobs"]
    assert (job["verdict"], job["rule"]) == ("rejected", "D205"), job
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------------- token logs
@pytest.mark.parametrize("line, why", [
    (token_line(prompt_tokens=10, completion_tokens=HUGE_INT), "integer"),
    ('{"task": "a", "model": "m", "usage": ' + DEEP + "}", "nested deeper"),
    (token_line().replace(f'"ended": {T0 + 1}', '"ended": 1e400'), "finite"),
])
def test_kgb_cost_on_a_token_log_bomb_is_one_line_and_exit_2(tmp_path, line, why):
    log = tmp_path / "tokens.jsonl"
    log.write_text(token_line() + "\n" + line + "\n")
    done = run_kgb("cost", log, timeout=120)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert done.stderr.count("\n") == 1 and "line 2" in done.stderr and why in done.stderr, \
        done.stderr[-2000:]
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_kgb_verify_refuses_a_token_log_bomb_before_any_job_runs(tmp_path):
    src = tmp_path / "sub"
    (src / "kernels").mkdir(parents=True)
    shutil.copy(ROOT / "examples/honest/kernels/math_addcmul.py", src / "kernels")
    (src / "manifest.toml").write_text('[submission]\nname = "x"\n[[kernels]]\n'
                                       'task = "math.addcmul"\nfile = "kernels/math_addcmul.py"\n')
    (src / "tokens.jsonl").write_text(token_line(prompt_tokens=HUGE_INT, completion_tokens=1)
                                      + "\n")
    out = tmp_path / "out"
    done = run_kgb("verify", src, "--device", "cpu", "--sandbox", "process", "--out", out,
                   timeout=300)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert done.stderr.count("\n") == 1 and "tokens.jsonl" in done.stderr \
        and "line 1" in done.stderr, done.stderr[-2000:]
    assert not (out / "jobs").exists()  # refused at unpack: no job ran


# ---------------------------------------------------------------- KernelBench probe
FORGER = '''import atexit
import sys

import torch
import torch.nn as nn


def _forge():  # after the probe's own report: the last line of stdout
    sys.stdout.flush()
    sys.stdout.buffer.write({line!r} + b"\\n")
    sys.stdout.buffer.flush()


atexit.register(_forge)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 4
dim = 9


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
'''


FORGED = [b'{"shapes": {"given": {}}}', b"{}", b'{"shapes": 5}', b"[" * 50_000,
          b'{"shapes": {"given": {"elements": "x"}}}', b"\xff\xfe{",
          b'{"shapes": {"given": {"elements": 4, "dtype": "float32\\u001b[2J"}}}']


@pytest.mark.slow
def test_problems_that_forge_the_probe_report_are_refused_and_the_good_one_imports(tmp_path):
    """One import run (each problem's probe starts torch): two forgers beside a good file;
    every other forged line is checked against read_report directly below."""
    problems = tmp_path / "problems"
    problems.mkdir()
    shutil.copy(ROOT / "tests/fixtures/kernelbench/1_ReLU.py", problems / "1_ReLU.py")
    (problems / "8_forger_relu.py").write_text(FORGER.format(line=FORGED[0]))
    (problems / "9_forger_relu.py").write_text(FORGER.format(line=FORGED[5]))
    out = tmp_path / "tasks"
    done = run_kgb("tasks", "import-kernelbench", problems, "--out", out, timeout=600)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "activation.kb_1_relu" in done.stdout and "1 imported, 2 failed" in done.stderr
    for name in ("8_forger_relu.py", "9_forger_relu.py"):
        refusal = [ln for ln in done.stderr.splitlines() if name in ln]
        assert len(refusal) == 1 and "probe report" in refusal[0], done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert (out / "Activation" / "kb_1_relu" / "task.toml").is_file()
    assert not any(p.name.startswith("kb_8") or p.name.startswith("kb_9")
                   for p in (out / "Activation").iterdir())


@pytest.mark.parametrize("forged", FORGED)
def test_read_report_refuses_every_forged_line(forged):
    from kgb.jsonfiles import Refused
    from kgb.tasks.kernelbench.probe import read_report

    with pytest.raises(Refused, match="^its probe report "):
        read_report(forged.decode("utf-8", "replace"), ["given"])


def test_read_report_accepts_what_the_probe_writes():
    from kgb.tasks.kernelbench.probe import read_report

    line = json.dumps({"shapes": {
        "tiny": {"elements": 35, "dtype": "float32", "out_integer": False, "finite": True,
                 "outlier_ok": True},
        "odd": {"error": "RuntimeError: size mismatch?"},
        "given": {"elements": 1 << 30, "estimated": True}}, "init_mismatch": "[1] != [2]"})
    assert read_report(line, ["given", "tiny", "odd"])["shapes"]["given"]["estimated"] is True



# ---------------------------------------------------------------- special files
def test_a_fifo_or_device_in_place_of_a_file_is_refused_not_waited_on(tmp_path):
    import os

    from kgb.jsonfiles import Refused, read_capped
    from kgb.runner.grade import grade

    job_dir = _job_folder(tmp_path, "{}")
    result = job_dir / P.OUT_DIR / P.RESULT_FILE
    result.unlink()
    os.mkfifo(result)  # nobody ever writes it: a blocking open would hang the regrade
    record = grade(job_dir, tmp_path / "out")
    assert record.verdict.rule == "D205" and "not a regular file" in record.verdict.message
    with pytest.raises(Refused, match="not a regular file"):
        read_capped(Path("/dev/zero"), 10)
    with pytest.raises(Refused, match="is a folder"):
        read_capped(tmp_path, 10)


# ---------------------------------------------------------------- fuzzing every parser
# Any bytes → a value within the bounds, or the parser's one typed error; never another
# exception. Documents are real JSON/TOML with bombs spliced in, and plain garbage.
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from kgb.jsonfiles import Bounds, Refused, loads_json, loads_toml  # noqa: E402

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SPECIAL = '[]{}"\\:,.-+eE0123456789 \n\tNaInfityulsr\x00\u2028é'
BOMBS = st.sampled_from([
    "[" * 33, "[" * 64 + "]" * 64, "[" * 65 + "]" * 65, "{\"a\":" * 70 + "1" + "}" * 70,
    DEEP, "[" * 50_000, HUGE, "-" + HUGE, HUGER, "18446744073709551616", "18446744073709551617",
    "1e400", "-1e400", "1" + "0" * 400 + ".0", "NaN", "Infinity", "-Infinity", '"\\', '"',
    "\\" * 1001, '"' + "\\\"" * 3000, "\udcff",
])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(alphabet=SPECIAL),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(SPECIAL, max_size=5),
                                                                inner, max_size=4),
    max_leaves=20)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Garbage, a bomb, or a real JSON document with bombs spliced in anywhere."""
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return draw(st.text(alphabet=SPECIAL, max_size=200))
    if kind == 1:
        return draw(BOMBS)
    text = json.dumps(draw(VALUES))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(BOMBS) + text[at:]
    return text


def within(value: object, bounds: Bounds) -> bool:
    """What the reader promises of every value it returns (walked without recursion)."""
    import math

    todo = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (dict, list)):
            if depth > bounds.max_depth:
                return False
            todo += [(v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)]
        elif isinstance(item, int) and not isinstance(item, bool):
            if abs(item) > bounds.max_int:
                return False
        elif isinstance(item, float) and not bounds.nonfinite and not math.isfinite(item):
            return False
    return True


def depth_of(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    return 0


@FUZZ
@given(documents(), st.sampled_from([Bounds(), Bounds(max_depth=3, max_int=1000),
                                     Bounds(nonfinite=True)]))
def test_fuzz_loads_json_gives_a_bounded_value_or_refused(text, bounds):
    for doc in (text, text.encode("utf-8", "surrogatepass")):
        try:
            value = loads_json(doc, bounds, "doc")
        except Refused as exc:
            assert exc.kind in ("syntax", "bounds") and "\n" not in exc.message
        else:
            assert within(value, bounds)


@FUZZ
@given(VALUES)
def test_fuzz_loads_json_reads_every_document_within_bounds(value):
    """No false refusal: the depth scan counts brackets inside strings as text."""
    text = json.dumps(value)
    finite = "NaN" not in text and "Infinity" not in text  # json.dumps writes these bare
    if finite and depth_of(value) <= 64 and within(value, Bounds()):
        assert loads_json(text) == json.loads(text)
    elif depth_of(value) > 64:
        with pytest.raises(Refused, match="nested deeper"):
            loads_json(text)


@FUZZ
@given(st.one_of(st.text(alphabet=SPECIAL + "=abc'#\n", max_size=200),
                 BOMBS.map(lambda b: "a = " + b),
                 st.integers(1, 60_000).map(lambda n: "a = " + "[" * n + "]" * n),
                 st.integers(1, 50_000).map(lambda n: "a" + ".a" * n + " = 1"),
                 st.integers(1, 2_000).map(lambda n: "a" + " . a" * n + " = 1"),
                 st.sampled_from(["a = inf", "a = nan", "a = 1" + "0" * 5000, "a = 1e400"])))
def test_fuzz_loads_toml_gives_a_bounded_value_or_refused(text):
    for bounds in (Bounds(), Bounds(nonfinite=True)):
        try:
            value = loads_toml(text, bounds, "doc")
        except Refused as exc:
            assert "\n" not in exc.message
        else:
            assert within(value, bounds)


def _valid_result() -> str:
    call = P.CallRecord(0, P.CallKind.PRIMARY, P.CaseStatus.RETURNED,
                        output_types=("torch.Tensor",), launches=1)
    return P.dumps(P.WorkerResult("done", (P.CaseRecord("a", (call,)),), compile_s=1.5))


@FUZZ
@given(st.one_of(documents(), st.binary(max_size=300),
                 st.tuples(st.integers(0, 400), BOMBS).map(
                     lambda p: _valid_result()[:p[0]] + p[1] + _valid_result()[p[0]:])),
       st.sampled_from([P.WorkerResult, P.JudgeResult, P.ExecRecord, P.JobRecord, P.Progress,
                        P.PlanRecord, P.JudgeRequest]))
def test_fuzz_protocol_loads_gives_a_message_or_a_protocol_error(doc, cls):
    try:
        message = P.loads(cls, doc, "msg")
    except P.ProtocolError as exc:
        assert "\n" not in str(exc)
    else:
        assert isinstance(message, cls)


def test_protocol_reads_what_kgb_writes_and_refuses_what_it_never_writes():
    assert P.loads(P.WorkerResult, _valid_result()).compile_s == 1.5
    big = P.loads(P.Commit, json.dumps({"case": "a", "fingerprints": [], "keep": [], "t": 0.5,
                                        "bytes": (1 << 63) - 1}))
    assert big.bytes == (1 << 63) - 1  # a 63-bit count (seeds, bytes) is not a bomb
    with pytest.raises(P.ProtocolError, match="integer beyond"):
        P.loads(P.Commit, json.dumps({"case": "a", "fingerprints": [], "keep": [], "t": 0.5,
                                      "bytes": 1 << 65}))


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(documents(), st.binary(max_size=200)))
def test_fuzz_grade_always_gives_a_verdict(doc):
    """The run's own grading of any result.json: a verdict, D205 when the file is not one."""
    import tempfile

    from kgb.runner.grade import grade

    with tempfile.TemporaryDirectory() as tmp:
        job_dir = _job_folder(Path(tmp), "")
        raw = doc if isinstance(doc, bytes) else doc.encode("utf-8", "surrogatepass")
        (job_dir / P.OUT_DIR / P.RESULT_FILE).write_bytes(raw)
        record = grade(job_dir, Path(tmp) / "out")
    try:
        P.loads(P.WorkerResult, raw)
    except P.ProtocolError:
        assert (record.verdict.verdict, record.verdict.rule) == ("rejected", "D205")
    assert "\n" not in record.verdict.message


TOKEN_LINES = st.one_of(
    st.just(token_line()), documents(),
    st.tuples(st.sampled_from(["prompt_tokens", "completion_tokens", "started", "attempt"]),
              BOMBS).map(lambda kv: token_line().replace(
                  f'"{kv[0]}": ', f'"{kv[0]}": {kv[1]}, "x{kv[0]}": ', 1)))


@FUZZ
@given(st.lists(TOKEN_LINES, min_size=1, max_size=5))
def test_fuzz_token_log_gives_records_or_one_line_bad_input(lines):
    import tempfile

    from kgb.cost.usage import parse_log
    from kgb.errors import BadInput

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tokens.jsonl"
        path.write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
        try:
            log = parse_log(path)
        except BadInput as exc:
            assert "\n" not in exc.message and " line " in exc.message
        else:
            assert len(log.records) + log.excluded == log.lines
            assert all(within([r.usage.input, r.usage.output, r.usage.cached], Bounds())
                       for r in log.records)


@FUZZ
@given(st.one_of(
    st.text(alphabet=SPECIAL + "=abc'#\n", max_size=200),
    BOMBS.map(lambda b: f'[models.m]\ninput = {b}\noutput = 1\n'),
    BOMBS.map(lambda b: f'[models.m]\ninput = 1\noutput = 1\naliases = {b}\n')))
def test_fuzz_pricing_file_gives_a_price_book_or_bad_input(text):
    import math
    import tempfile

    from kgb.cost.pricing import load_pricing
    from kgb.errors import BadInput

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pricing.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            book = load_pricing(path)
        except BadInput as exc:
            assert "\n" not in exc.message
        else:
            assert all(math.isfinite(m.input) and math.isfinite(m.output) for m in book.models)


MANIFEST_HEAD = '[submission]\nname = "x"\n[[kernels]]\ntask = "a.b"\nfile = "kernels/a.py"\n'


@FUZZ
@given(st.one_of(st.text(alphabet=SPECIAL + "=abc'#\n", max_size=200),
                 BOMBS.map(lambda b: MANIFEST_HEAD + f"entry = {b}\n"),
                 BOMBS.map(lambda b: MANIFEST_HEAD.replace('name = "x"',
                                                           f'name = "x"\ntokens = {{ a = {b} }}'))))
def test_fuzz_manifest_gives_a_manifest_or_a_submission_error(text):
    from kgb.errors import SubmissionError
    from kgb.manifest import parse_manifest

    try:
        manifest = parse_manifest(text, "manifest.toml")
    except SubmissionError as exc:
        assert "\n" not in exc.message
    else:
        assert within(manifest.declared_tokens or {}, Bounds())


@FUZZ
@given(st.one_of(documents(), st.tuples(st.sampled_from(["elements", "dtype", "error", "x"]),
                                        BOMBS).map(
    lambda kv: '{"shapes": {"given": {"%s": %s}}}' % kv)))
def test_fuzz_probe_report_gives_a_report_or_refused(line):
    from kgb.tasks.kernelbench.probe import read_report

    try:
        found = read_report(line, ["given"])
    except Refused as exc:
        assert exc.message.startswith("its probe report ") and "\n" not in exc.message
    else:
        assert set(found["shapes"]) == {"given"}


@FUZZ
@given(documents())
def test_fuzz_report_reader_gives_a_report_or_bad_input(text):
    import tempfile

    from kgb.errors import BadInput
    from kgb.report.json_report import read_report

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "report.json").write_text(text, errors="surrogatepass")
        try:
            report = read_report(Path(tmp))
        except BadInput as exc:
            assert "\n" not in exc.message
        else:
            assert isinstance(report["jobs"], list)


# ---------------------------------------------------------------- the supervisor's channel
@pytest.mark.parametrize("payload", [
    '{"fingerprints": ["a"], "bytes": ' + HUGE + "}", '{"fingerprints": ["a"], "bytes": 1e400}',
    "[" * 100_000, '{"fingerprints": [' + "[" * 100_000 + '], "bytes": 1}'])
def test_a_hostile_claim_on_the_channel_neither_stops_the_supervisor_nor_the_run(tmp_path,
                                                                                  payload):
    """The worker's claims reach the supervisor (stdlib only, outside the reader) and, through
    its report, exec.json: a deep claim must not kill it, a huge byte count must not make
    exec.json a file the bounded reader refuses (that would be exit 3, a lost run)."""
    import os
    import time

    from kgb.jsonfiles import write_json_atomic
    from kgb.sandbox._supervisor import _Notary

    read_end, write_end = os.pipe()
    notary = _Notary(-1, write_end, time.monotonic())
    notary.feed(f"C case {payload}\nC next {{\"fingerprints\": [\"b\"], \"bytes\": 8}}\n".encode())
    os.close(read_end)
    os.close(write_end)
    assert [c["case"] for c in notary.commits] == ["case", "next"]
    commits = P.parse(tuple[P.Commit, ...], notary.commits)
    record = P.ExecRecord("process", 0, False, 1.0, False, commits=commits)
    write_json_atomic(tmp_path / P.EXEC_FILE, P.to_json(record))
    assert P.read(P.ExecRecord, tmp_path / P.EXEC_FILE, 1 << 20).commits[1].bytes == 8


@pytest.mark.parametrize("tail", [b"[" * 100_000, b'{"returncode": ' + HUGER.encode() + b"}"])
def test_a_report_bomb_in_the_workers_stderr_is_no_report(tail):
    """The host finds the supervisor's report as the last tagged line of stderr; where the
    supervisor wrote none (killed), that line is the worker's: a bomb there is no report."""
    from kgb.sandbox._supervisor import REPORT_TAG, split_report

    stderr, report = split_report(b"worker says" + REPORT_TAG + tail)
    assert report is None and stderr.startswith(b"worker says")


# ------------------------------------------------- the worker's output files, to the judge
def _output_file() -> bytes:
    import tempfile

    import torch

    from kgb.worker.outputs import save_outputs

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "good.safetensors"
        save_outputs((torch.arange(64, dtype=torch.float32).reshape(8, 8),
                      torch.ones(3, dtype=torch.int64)), path)
        return path.read_bytes()


GOOD_OUTPUT = _output_file()
HEADER_FIELDS = st.sampled_from(["dtype", "shape", "data_offsets"])
FIELD_VALUES = st.sampled_from([[], [-1], [1 << 62], "F8_E4M3", "BOOL", "U64", [0, 1 << 40],
                                [10, 5], None, 7, {"a": 1}, [2, 2, 2, 2], DEEP[:200]])
KEYS = st.sampled_from(["out0", "out1", "out0.fill", "out0.shape", "out0.index",
                        "out0.value", "out5", "out00", "__metadata__", "x"])


@st.composite
def output_files(draw: st.DrawFn) -> bytes:
    """The worker's file with its header edited, its bytes flipped or cut, or a bomb."""
    import struct

    good, n = GOOD_OUTPUT, struct.unpack("<Q", GOOD_OUTPUT[:8])[0]
    kind = draw(st.integers(0, 4))
    if kind == 0:  # bytes flipped anywhere
        blob = bytearray(good)
        for at in draw(st.lists(st.integers(0, len(good) - 1), min_size=1, max_size=4)):
            blob[at] = draw(st.integers(0, 255))
        return bytes(blob)
    if kind == 1:  # cut short
        return good[:draw(st.integers(0, len(good) - 1))]
    if kind == 2:  # the header's length lies
        return struct.pack("<Q", draw(st.sampled_from([0, 1, n - 1, n + 8, 1 << 40,
                                                        (1 << 64) - 1]))) + good[8:]
    header = json.loads(good[8:8 + n])
    if kind == 3:  # a field of an entry, or an entry's name, edited
        key = draw(st.sampled_from(sorted(header)))
        header[key][draw(HEADER_FIELDS)] = draw(FIELD_VALUES)
        header[draw(KEYS)] = header.pop(key)
        text = json.dumps(header).encode()
    else:
        text = draw(st.sampled_from([DEEP.encode(), b'{"out0":{"dtype":"F32","shape":['
                                     + HUGER.encode() + b'],"data_offsets":[0,4]}}']))
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + good[8 + n:]


@FUZZ
@given(blob=output_files(), with_primary=st.booleans())
def test_the_judge_reads_any_output_file_or_refuses_it_as_unreadable(tmp_path_factory, blob,
                                                                     with_primary):
    """Whatever the worker's file holds, the judge loads tensors or raises OSError/ValueError
    (the call's `unreadable outputs`): no other exception, which would fail the judge and turn
    the call into kgb's failure (tests/fixtures/dynamic/incorrect_garbles_its_output_files)."""
    import torch

    from kgb.judge.judge import load_outputs

    folder = tmp_path_factory.mktemp("out")
    (folder / "x.safetensors").write_bytes(blob)
    primary = [torch.arange(64, dtype=torch.float32).reshape(8, 8)] if with_primary else None
    try:
        outputs = load_outputs(folder, "x.safetensors", "cpu", 1 << 20, (), primary)
    except (OSError, ValueError):
        return
    assert all(isinstance(t, torch.Tensor) for t in outputs)
