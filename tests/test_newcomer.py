"""Issue 28, items 5-8: what a newcomer sees first. Rates over the submitted kernels (suite
coverage apart), numbers that agree everywhere, one kernel file without a manifest, remembered
task folders, and one line for bad input. Each test failed before its fix."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, run_kgb
from synthetic_reports import cpu_report, gpu_report

from kgb.cli import cli
from kgb.errors import BadInput
from kgb.report.compare import compare_reports
from kgb.report.feedback import feedback
from kgb.report.html import render_html
from kgb.report.markdown import render_markdown
from kgb.report.terminal import JobProgress, print_report

# One submitted kernel that passed, three suite tasks without a kernel, in other categories:
# `make demo`'s 16 of 308 in small.
ONE_OF_FOUR = [
    ("normalization.softmax", "Normalization", "passed", [(0.20, 0.10), (0.80, 0.40)], None, "",
     71.0),
    ("optimizer.adam", "Optimizer", "missing", [], None, "", 0.0),
    ("random.dropout", "Random", "missing", [], None, "", 0.0),
    ("activation.relu", "Activation", "missing", [], None, "", 0.0),
]
FAILED_ONLY = [
    ("normalization.softmax", "Normalization", "incorrect", [], None, "case 0 differs", 60.0),
    ("activation.relu", "Activation", "missing", [], None, "", 0.0),
]


def _terminal(report: dict, capsys) -> str:
    print_report(report)
    return capsys.readouterr().out


# ---- 5: rates over what was submitted -------------------------------------------------------

@pytest.mark.parametrize("make", [cpu_report, gpu_report])
def test_rates_are_over_the_submitted_kernels_and_coverage_is_apart(make, capsys):
    report = make(jobs=ONE_OF_FOUR)
    rates = report["summary"]["rates"]
    assert (rates["tasks"], rates["correct"], rates["correct_rate"]) == (1, 1, 1.0)
    assert (rates["suite_tasks"], rates["coverage"]) == (4, 0.25)
    assert list(report["summary"]["by_category"]) == ["Normalization"]  # no 0 % bars
    md = render_markdown(report)
    assert "| correct rate | 1/1 (100%) |" in md and "| suite coverage | 1/4 (25%) |" in md
    assert "Coverage: 1 of 4 suite tasks submitted" in md
    html = render_html(report)
    assert "<b>100%</b><span>correct rate</span>" in html and "suite tasks submitted" in html
    out = _terminal(report, capsys)
    assert "correct 1/1 (100%)" in out and "coverage: 1 of 4 suite tasks submitted" in out


def test_the_composite_is_the_mean_over_submitted_kernels():
    # softmax: median speedup 2.0, CV 0, every case correct, fast: composite 2.0
    assert gpu_report(jobs=ONE_OF_FOUR)["summary"]["composite"] == pytest.approx(2.0)


def test_progress_prints_no_line_for_a_task_without_a_kernel(capsys):
    with JobProgress(1) as progress:  # stderr is captured: one line per finished job
        for name, verdict in (("a.x", "missing"), ("b.y", "passed"), ("c.z", "missing (resumed)")):
            progress.start(name)
            progress.done(name, verdict)
    err = capsys.readouterr().err
    assert "missing" not in err and err.count("verify [") == 1 and "[1/1] b.y: passed" in err


def test_compare_rows_are_the_submitted_tasks():
    cmp = compare_reports([gpu_report(jobs=ONE_OF_FOUR), cpu_report(jobs=ONE_OF_FOUR)])
    assert [r["task"] for r in cmp["tasks"]] == ["normalization.softmax"]


# ---- 6: right numbers -------------------------------------------------------------------

def test_a_cpu_run_where_nothing_passed_has_no_fast_1(capsys):
    report = cpu_report(jobs=FAILED_ONLY)
    assert report["summary"]["rates"]["fast_p"]["fast_1"] is None
    assert "fast_1" not in _terminal(report, capsys)


def test_cpu_reports_show_no_fast_p_row():
    report = cpu_report(jobs=ONE_OF_FOUR)
    assert "fast_0" not in render_html(report) and "| fast_0 |" not in render_markdown(report)
    assert "fast_0" in render_html(gpu_report(jobs=ONE_OF_FOUR))  # a timed run keeps it


def test_compare_of_untimed_runs_gives_no_kernel_a_composite():
    jobs = FAILED_ONLY + [("math.addcmul",) + ONE_OF_FOUR[0][1:]]
    cmp = compare_reports([cpu_report(jobs=jobs), cpu_report(jobs=jobs)])
    assert {r["task"]: r["composite"] for r in cmp["tasks"]} == {
        "normalization.softmax": None, "math.addcmul": None}  # not 0.00 beside —


def test_compare_refuses_runs_of_two_submissions(tmp_path):
    other = gpu_report()
    other["submission"]["name"] = "another"
    with pytest.raises(BadInput, match="another submission"):
        compare_reports([gpu_report(), other])
    same_name = gpu_report()
    same_name["submission"]["digest"] = "ab" * 32
    with pytest.raises(BadInput):  # the same name with other files is another submission
        compare_reports([dict(gpu_report(), submission=dict(same_name["submission"],
                                                             digest="cd" * 32)), same_name])
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(gpu_report()))
    b.write_text(json.dumps(other))
    done = run_kgb("compare", a, b, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr


def test_an_infinite_error_reads_inf_in_the_terminal_and_the_html(capsys):
    report = cpu_report(jobs=FAILED_ONLY)
    report["jobs"][0]["max_rel_l2_err"] = float("inf")
    row = next(ln for ln in _terminal(report, capsys).splitlines() if "softmax" in ln)
    assert " inf " in row
    assert '<td class="n">inf</td>' in render_html(report)


def test_a_python_syntax_error_is_not_blamed_on_triton():
    text = feedback({"task": "t.x", "verdict": "compile_error", "location": "k.py:3:9",
                     "message": "syntax error: invalid syntax (the file is not valid Python)",
                     "findings": [{"rule": "S100", "message": "syntax error: invalid syntax",
                                   "location": "k.py:3:9"}]})
    assert "not valid Python" in text and "Triton refused" not in text
    triton = feedback({"task": "t.x", "verdict": "compile_error", "message": "tl.dot needs 16"})
    assert "Triton refused" in triton


def _cost_report(make) -> dict:
    from kgb.cost import cost_section

    report = make(jobs=ONE_OF_FOUR)
    fixtures = ROOT / "tests" / "fixtures" / "cost"
    report["cost"] = cost_section(fixtures / "generic.jsonl", fixtures / "pricing.toml",
                                  ["normalization.softmax"], report["jobs"], None)
    return report


def test_the_cost_is_in_report_md_and_html_too():
    report = _cost_report(gpu_report)
    assert "## Token cost" in render_markdown(report)
    assert "per correct kernel" in render_markdown(report)
    assert "<h2>Token cost</h2>" in render_html(report) and "per correct kernel" in \
        render_html(report)


def test_cost_of_a_cpu_report_does_not_wait_for_speedups():
    from kgb.cost.render import summary_rows

    rows = dict(summary_rows(_cost_report(cpu_report)["cost"]))
    assert "yet" not in rows["per fast_1 kernel"] and "CPU" in rows["per fast_1 kernel"]


# ---- 7: less ceremony -------------------------------------------------------------------

def test_one_kernel_file_is_verified_without_a_manifest(tmp_path):
    broken = tmp_path / "relu.py"
    broken.write_text("import triton\ndef run(x:\n")  # layer 1 decides: no sandbox time
    alone = run_kgb("verify", broken, "--out", tmp_path / "o1", timeout=300)
    assert alone.returncode == 2 and alone.stderr.count("\n") == 1
    assert "--task ID" in alone.stderr and "Traceback" not in alone.stderr
    done = run_kgb("verify", broken, "--task", "activation.relu", "--device", "cpu",
                   "--sandbox", "process", "--out", tmp_path / "o2", "--json", timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [(j["task"], j["verdict"]) for j in report["jobs"]] == [
        ("activation.relu", "compile_error")]  # only the task asked for: no missing rows
    assert "not valid Python" in report["jobs"][0]["feedback"]
    assert report["submission"]["name"] == "relu.py"


def _imported_suite(folder: Path) -> Path:
    """A task folder holding one task the bundled suite does not have."""
    task = folder / "Activation" / "kb_relu"
    shutil.copytree(ROOT / "tasks" / "Activation" / "relu", task)
    toml = task / "task.toml"
    toml.write_text(toml.read_text().replace('id = "activation.relu"', 'id = "activation.kb_relu"'))
    return folder


def test_init_records_its_task_folder_and_verify_finds_it(tmp_path):
    from kgb.quickstart import remembered_tasks

    suite = _imported_suite(tmp_path / "tk")
    sub = tmp_path / "sub"
    done = CliRunner().invoke(cli, ["init", str(sub), "--task", "activation.kb_relu",
                                    "--tasks", str(suite)])
    assert done.exit_code == 0, done.output
    assert f"kgb verify {sub} --tasks {suite}" in done.output  # a suggestion that works
    assert remembered_tasks(sub, ROOT / "tasks") == suite.resolve()
    listed = CliRunner().invoke(cli, ["tasks", "list", "--tasks", str(suite), "--json"])
    assert [t["id"] for t in json.loads(listed.output)] == ["activation.kb_relu"]


def test_a_manifest_cannot_choose_the_definition_of_a_bundled_task(tmp_path):
    """The attack: a generator's manifest points a bundled task id at an easier copy."""
    from kgb.quickstart import remembered_tasks

    easy = _imported_suite(tmp_path / "easy")
    shutil.copytree(ROOT / "tasks" / "Activation" / "relu", easy / "Activation" / "relu")
    sub = tmp_path / "sub"
    (sub / "kernels").mkdir(parents=True)
    (sub / "kernels" / "r.py").write_text("x = 1\n")
    (sub / "manifest.toml").write_text(
        f'[submission]\nname = "s"\ntasks = "{easy}"\n'
        '[[kernels]]\ntask = "activation.relu"\nfile = "kernels/r.py"\n')
    with pytest.raises(BadInput, match="not given kgb yourself"):
        remembered_tasks(sub, ROOT / "tasks")  # a folder the user never named: refused first
    from kgb.tasks.known_folders import register

    register(easy)  # even one the user named cannot redefine a bundled task
    with pytest.raises(BadInput, match="is a bundled task"):
        remembered_tasks(sub, ROOT / "tasks")
    (sub / "manifest.toml").write_text(  # a folder that is not there: one line, not a guess
        '[submission]\nname = "s"\ntasks = "/nonexistent/tasks"\n'
        '[[kernels]]\ntask = "activation.kb_relu"\nfile = "kernels/r.py"\n')
    with pytest.raises(BadInput, match="does not exist here"):
        remembered_tasks(sub, ROOT / "tasks")


def test_a_manifest_cannot_make_kgb_run_a_task_folder_the_user_never_gave_it(tmp_path):
    """The attack: a generator's manifest names a task folder of its own (inside the
    submission) for a task id the bundled suite lacks; that folder's reference.py would run in
    the trusted judge, outside any sandbox. Only folders the user gave kgb are honoured."""
    evil = _imported_suite(tmp_path / "sub" / "evil_tasks")
    marker = tmp_path / "judge-ran-the-submissions-code"
    reference = evil / "Activation" / "kb_relu" / "reference.py"
    reference.write_text(f"open({str(marker)!r}, 'w').close()\n" + reference.read_text())
    sub = tmp_path / "sub"
    (sub / "kernels").mkdir(parents=True)
    (sub / "kernels" / "r.py").write_text((ROOT / "tasks/Activation/relu/solution.py").read_text())
    (sub / "manifest.toml").write_text(
        f'[submission]\nname = "s"\ntasks = "{evil}"\n'
        '[[kernels]]\ntask = "activation.kb_relu"\nfile = "kernels/r.py"\n')
    done = run_kgb("verify", sub, "--out", tmp_path / "out", "--device", "cpu", "--sandbox",
                   "process")
    assert done.returncode == 2 and "you have not given kgb yourself" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not marker.exists()


def test_the_skeleton_docstring_is_a_whole_sentence():
    from kgb.tasks.skeleton import first_sentence

    wrapped = ("KernelBench problem 1_ReLU.py: write `class ModelNew(nn.Module)` that\n"
               "computes what the Model below computes, with Triton kernels.\nModelNew takes")
    assert first_sentence(wrapped).endswith("with Triton kernels.")


def test_imported_ids_use_the_suite_prefixes():
    from kgb.tasks.kernelbench import id_prefix

    assert (id_prefix("MatrixMultiply"), id_prefix("SpatialOps"), id_prefix("LinearAlgebra"),
            id_prefix("Activation")) == ("matmul", "spatial", "linear_algebra", "activation")


def test_feedback_names_every_failing_case_itself():
    cases = [{"id": f"c{i}", "status": "failed", "message": "differs"} for i in range(9)]
    text = feedback({"task": "t.x", "verdict": "incorrect", "cases": cases})
    assert "report.json" not in text  # verify_kernel without out= has deleted it
    assert "Also failing: c3, c4, c5, c6, c7, c8." in text


# ---- 8: bad input is one line ---------------------------------------------------------------

def _plain_text_targz(path: Path) -> Path:
    path.write_text("not an archive\n")
    return path


def _empty_tar(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def _gzip_of_text(path: Path) -> Path:
    import gzip

    path.write_bytes(gzip.compress(b"plain text, gzipped\n" * 40))
    return path


@pytest.mark.parametrize("make", [_empty_tar, _plain_text_targz, _gzip_of_text])
def test_an_archive_that_is_not_one_is_one_line(tmp_path, make):
    from kgb.errors import SubmissionError
    from kgb.submission import load_submission

    source = make(tmp_path / "sub.tar.gz")
    with pytest.raises(SubmissionError) as caught:
        load_submission(source, tmp_path / "unpacked")
    assert "\n" not in caught.value.message and "tar czf" in caught.value.message


def test_a_real_empty_tar_says_what_is_missing(tmp_path):
    from kgb.errors import SubmissionError
    from kgb.submission import load_submission

    source = tmp_path / "empty.tar"
    with tarfile.open(source, "w") as tar:
        tar.addfile(tarfile.TarInfo("dir"), io.BytesIO(b""))
    with pytest.raises(SubmissionError, match=r"no manifest\.toml"):
        load_submission(source, tmp_path / "unpacked")


def test_an_unknown_task_id_suggests_the_near_ones(tmp_path):
    shown = CliRunner().invoke(cli, ["tasks", "show", "normalization.rmsnorm"])
    assert "did you mean normalization.rms_norm" in str(shown.exception)
    init = CliRunner().invoke(cli, ["init", str(tmp_path / "s"), "--task", "activation.rlu"])
    assert "did you mean activation.relu" in str(init.exception)
    kernel = tmp_path / "k.py"
    kernel.write_text("x = 1\n")
    done = run_kgb("verify", kernel, "--task", "normalization.rmsnorm", "--device", "cpu",
                   "--out", tmp_path / "o", timeout=300)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "did you mean normalization.rms_norm" in done.stderr


def test_the_prompt_says_what_a_cpu_run_gives_a_kernel_written_for_cuda():
    """Issue 28 item 2: neither the prompt nor the feedback said that CPU runs pass CPU
    tensors; a generator reading it must know its CUDA idioms still work there."""
    from kgb.tasks.loader import load_task
    from kgb.tasks.skeleton import prompt

    text = prompt(load_task(ROOT / "tasks" / "Activation" / "relu"))
    assert "CPU interpreter on CPU tensors" in text and "x.is_cuda" in text
