"""report.md and report.html: real content from report.json (rates, categories, offenders), an
honest CPU notice instead of empty speed columns, one self-contained HTML file that no kernel
message can script, and `kgb report --format/--output`."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from synthetic_reports import HOSTILE, cpu_report, gpu_report

from kgb.cli import cli
from kgb.errors import BadInput
from kgb.jsonfiles import write_json_atomic
from kgb.metrics.code import code_metrics
from kgb.report.html import render_html
from kgb.report.markdown import cell, render_markdown


@pytest.fixture(scope="module")
def gpu() -> dict:
    return gpu_report()


@pytest.fixture(scope="module")
def cpu() -> dict:
    return cpu_report()


@pytest.fixture(scope="module")
def gpu_html(gpu) -> str:
    return render_html(gpu)


@pytest.fixture(scope="module")
def cpu_html(cpu) -> str:
    return render_html(cpu)


def _row(md: str, first_cell: str) -> list[str]:
    line = next(ln for ln in md.splitlines() if ln.startswith(f"| {first_cell} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_markdown_summary_has_the_rates_of_the_report(gpu):
    md = render_markdown(gpu)
    # 7 tasks, 6 submitted: 4 passed (softmax 2.0x, rms_norm 1.73x, addcmul 0.5x, matmul 1.25x)
    assert _row(md, "correct rate") == ["correct rate", "4/6 (67%)"]
    assert _row(md, "compile rate") == ["compile rate", "5/6 (83%)"]
    assert _row(md, "suite coverage") == ["suite coverage", "6/7 (86%)"]
    assert _row(md, "Correct/Compile")[1] == "80%"
    assert _row(md, "fast_0")[1] == "67%"
    assert _row(md, "fast_1")[1] == "50%"  # 3 of 6 above 1x
    assert _row(md, "fast_1.5")[1] == "33%"  # softmax and rms_norm
    assert _row(md, "fast_2")[1] == "0%"  # strictly more than 2x: none
    assert "1.21×" in _row(md, "geomean speedup over eager (correct kernels)")[1]
    assert "Verdicts: passed 4, rejected 1, incorrect 1, missing 1" in md


def test_a_run_without_the_compile_baseline_says_so_instead_of_a_blank_speedup(gpu):
    """Seen on a real H100 run with --baselines eager: the html summary read "—×"."""
    import copy

    eager_only = copy.deepcopy(gpu)
    eager_only["environment"]["baselines"] = "eager"
    md, page = render_markdown(eager_only), render_html(eager_only)
    assert _row(md, "geomean speedup over torch.compile")[1] == "not timed (--baselines eager)"
    assert "not timed (--baselines eager)" in page
    assert "—×" not in md and "—×" not in page
    assert "×" in _row(render_markdown(gpu), "geomean speedup over torch.compile")[1]


def test_markdown_category_table_and_offenders(gpu):
    md = render_markdown(gpu)
    assert _row(md, "Normalization") == ["Normalization", "2", "2", "2", "100%", "100%", "1.86"]
    assert _row(md, "MatrixMultiply")[1:5] == ["2", "2", "1", "50%"]
    offenders = md.split("## Worst offenders")[1]
    assert "matmul.bmm | incorrect" in offenders and "12 of 4096 elements differ" in offenders
    assert "S101" in offenders and "kernels/activation.gelu.py:12:4" in offenders
    slowest = offenders.split("Slowest correct kernels")[1]
    assert slowest.index("math.addcmul") < slowest.index("normalization.softmax")
    assert "| math.addcmul | 0.50 |" in slowest
    assert "matmul.matmul | 48.0 |" in md  # lowest maintainability index first


def test_timing_checks_that_could_not_run_are_shown_not_only_in_json(tmp_path, gpu):
    """A passed kernel whose D306 could not be compared (or whose timed outputs were not
    re-checked) says so in the terminal, markdown and html reports, not only in report.json;
    a reason shared by many jobs (an unknown GPU's peaks) is said once, with its kernels."""
    import copy

    report = copy.deepcopy(gpu)
    passed = [j for j in report["jobs"] if j.get("verdict") == "passed"]
    no_peaks = "no peaks known for this device: roofline floor not checked"
    for job in passed:
        job["speed_unchecked"] = [no_peaks]
    jobs = {j["task"]: j for j in report["jobs"]}
    blind = "c0: the profiler saw no kernels in the checking call: D306 <b>|x"
    jobs["normalization.softmax"]["speed_unchecked"].append(blind)
    jobs["matmul.bmm"]["speed_unchecked"] = ["not shown: this kernel did not pass"]
    md = render_markdown(report)
    section = md.split("Timing checks that could not run")[1].split("## ")[0]
    assert _row(section, no_peaks)[1] == ", ".join(j["task"] for j in passed) and len(passed) > 2
    blind_row = next(ln for ln in section.splitlines() if ln.startswith("| c0: the profiler"))
    assert "&lt;b&gt;\\|x" in blind_row and blind_row.endswith("| normalization.softmax |")
    assert "matmul.bmm" not in section and "not shown" not in md
    assert "Timing checks that could not run" not in render_markdown(gpu)
    page = render_html(report)
    assert "Timing checks that could not run" in page and "D306 &lt;b&gt;|x" in page
    assert page.count(no_peaks) == 1 and "not shown" not in page
    assert "Timing checks that could not run" not in render_html(gpu)
    shown = CliRunner().invoke(cli, ["report", str(_run_dir(tmp_path, report))])
    assert shown.exit_code == 0 and "not shown" not in shown.output
    lines = [ln for ln in shown.output.splitlines() if "timing check not run" in ln]
    assert len(lines) == 2, lines  # one line per reason, not per job
    assert "normalization.softmax" in lines[1] and "D306" in lines[1]


def test_markdown_cpu_run_says_timings_are_not_meaningful_and_shows_no_speed_columns(cpu):
    md = render_markdown(cpu)
    assert "timings are not meaningful" in md and "excluded from speedups" in md
    assert "geomean speedup" not in md and "fast_1 |" not in md
    assert _row(md, "Normalization") == ["Normalization", "2", "2", "2", "100%"]
    assert "Slowest correct kernels" not in md
    assert _row(md, "correct rate")[1] == "4/6 (67%)"  # correctness rates stay
    assert "| fast_0 |" not in md  # on the CPU it would only repeat the correct rate


def test_markdown_cells_are_inert():
    assert cell("a|b") == "a\\|b"
    text = cell(HOSTILE)
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "\\[click\\]" in text and "http://" not in text and "\\`" in text
    assert "\n" not in cell("line\nnext")


def test_html_is_self_contained_and_escapes_kernel_messages(gpu_html):
    assert gpu_html.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", gpu_html, re.I)
    assert "<script" not in gpu_html.lower()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in gpu_html
    assert "<link" not in gpu_html and "@import" not in gpu_html
    assert "Content-Security-Policy" in gpu_html


def test_html_gpu_report_has_its_charts(gpu_html):
    assert gpu_html.count("<svg") == 4  # speedups, categories, roofline, shape robustness
    assert "<?xml" not in gpu_html and "<!DOCTYPE svg" not in gpu_html
    assert "roofline" in gpu_html and "3350 GB/s" in gpu_html  # peaks from the fractions
    assert "4 task(s) with at least two timed cases" in gpu_html
    assert "No speed charts" not in gpu_html
    assert ">1.21×<" in gpu_html  # the geomean card


def test_html_cpu_report_shows_a_notice_instead_of_speed_charts(cpu_html):
    assert "No speed charts" in cpu_html and "timings are not meaningful" in cpu_html
    assert cpu_html.count("<svg") == 1  # only the correct-rate bars: real data on a CPU
    assert "geomean speedup" not in cpu_html and "Achieved throughput" not in cpu_html
    assert "<th>speedup</th>" not in cpu_html


def test_html_roofline_caption_says_which_kernels_lack_figures(gpu):
    stripped = json.loads(json.dumps(gpu))
    for job in stripped["jobs"]:
        if job["task"] == "math.addcmul":
            for t in job["timings"]:
                t["flops"] = 0.0  # a task without a [cost] model
    html = render_html(stripped)
    assert "3 correct kernel(s) on their largest timed case" in html
    assert "1 correct kernel(s) left out" in html


def test_html_survives_a_hostile_report_file(gpu):
    bad = json.loads(json.dumps(gpu))
    bad["environment"]["device_name"] = "<img src=x onerror=alert(1)>"
    bad["summary"]["by_category"]["$\\frac{<b>}{}$"] = {"correct_rate": "lots"}
    bad["jobs"][0]["speedup_eager"] = "fast"
    bad["jobs"][1]["category"] = "<b>cat</b>"
    html = render_html(bad)
    assert "<img" not in html and "&lt;img src=x" in html
    assert "<b>cat" not in html and "&lt;b&gt;cat&lt;/b&gt;" in html
    assert "{&lt;b&gt;}" in html  # the category label reached the chart as text, escaped


def test_code_metrics_of_a_kernel_file():
    source = ("def f(x):\n    if x > 0:\n        return 1\n    for i in range(3):\n"
              "        x += i\n    return x\n\n\ndef g():\n    return 2\n")
    m = code_metrics(source)
    assert m is not None and m.functions == 2 and m.cc_max == 3 and m.cc_mean == 2.0
    assert 0 < m.mi <= 100
    assert code_metrics("def broken(:\n") is None


def test_report_jobs_carry_code_and_robustness_fields(gpu):
    rms = next(j for j in gpu["jobs"] if j["task"] == "normalization.rms_norm")
    assert rms["code"]["mi"] == 65.5
    assert rms["shape_cv"] == pytest.approx(0.5)  # speedups 3 and 1
    assert rms["speedup_median"] == pytest.approx(2.0)
    assert rms["composite"] == pytest.approx(1.0)  # 2.0 × 0.5 × 1 × 1
    # the mean over the 6 submitted kernels (the missing relu is not one)
    assert gpu["summary"]["composite"] == pytest.approx((2.0 + 1.0 + 0 + 1.25) / 6)


def _run_dir(tmp_path, report):
    out = tmp_path / "run"
    out.mkdir()
    write_json_atomic(out / "report.json", report)
    return out


def test_cli_report_formats(tmp_path, gpu):
    out = _run_dir(tmp_path, gpu)
    runner = CliRunner()
    md = runner.invoke(cli, ["report", str(out), "--format", "md"])
    assert md.exit_code == 0 and "## By category" in md.output
    as_json = runner.invoke(cli, ["report", str(out), "--json"])
    assert json.loads(as_json.output)["seed"] == 7
    target = tmp_path / "r.html"
    done = runner.invoke(cli, ["report", str(out), "--format", "html", "--output", str(target)])
    assert done.exit_code == 0 and target.read_text().startswith("<!DOCTYPE html>")
    assert "<!DOCTYPE" not in done.stdout


def test_cli_report_refuses_contradictory_or_missing_input(tmp_path, gpu):
    out = _run_dir(tmp_path, gpu)
    runner = CliRunner()
    both = runner.invoke(cli, ["report", str(out), "--json", "--format", "md"],
                         standalone_mode=False)
    assert both.exception is not None and "disagree" in str(both.exception)
    table_to_file = runner.invoke(cli, ["report", str(out), "--output", str(tmp_path / "t")],
                                  standalone_mode=False)
    assert table_to_file.exception is not None
    missing = runner.invoke(cli, ["report", str(tmp_path / "nowhere"), "--format", "md"])
    assert isinstance(missing.exception, BadInput) and missing.exception.exit_code == 2


def test_verify_writes_human_reports_beside_report_json(tmp_path, gpu):
    from kgb.report.files import write_human_reports

    written = write_human_reports(gpu, tmp_path)
    assert [p.name for p in written] == ["report.md", "report.html"]
    assert "## Summary" in (tmp_path / "report.md").read_text()
    assert "<svg" in (tmp_path / "report.html").read_text()


def test_report_json_is_one_job_a_line_and_reads_back_the_same(tmp_path):
    """write_report: each job row on a line of its own (json's C encoder; a batch member's
    report holds ~460 rows), the rest indented; read back, it is the report as written,
    values json cannot hold named by str() as before. A missing row is a fresh object each
    time (kept per process as JSON text), so one report's row never changes another's."""
    from pathlib import Path

    from kgb.report.json_report import write_report
    from kgb.runner.missing import missing_entry

    rows = [missing_entry("a.b", "Activation", "cuda:0") for _ in range(3)]
    rows[0]["findings"].append("changed")
    assert rows[1]["findings"] == [] and rows[1] == rows[2] and rows[1] is not rows[2]
    report = {"schema_version": 3, "complete": True, "environment": {"out": Path("/x")},
              "jobs": rows, "summary": {"total": 3, "counts": {"missing": 3}}, "empty": []}
    path = write_report(report, tmp_path)
    text = path.read_text()
    assert json.loads(text) == json.loads(json.dumps(report, default=str))
    assert list(json.loads(text)) == list(report)  # the keys' order kept
    lines = text.splitlines()
    assert sum(line.lstrip().startswith('{"task": "a.b"') for line in lines) == 3
    assert json.loads(text)["environment"]["out"] == "/x"
