"""The Ray backend (kgb.placement): a real Ray cluster of two nodes on this machine (`ray start
--head` with two CPUs and `ray start --address` with one, each with a custom resource), running
kgb's own sandboxed jobs on actors (one per CPU) while the host grades. The cluster tests skip, with the reason, where
Ray is not installed (the `ray` extra)."""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from kgb.errors import InfraError
from kgb.placement.files import pack, unpack

ROOT = Path(__file__).resolve().parent.parent
RAY_BIN = Path(sys.executable).parent / "ray"
HAVE_RAY = RAY_BIN.exists() and importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="ray is not installed: pip install -e "
                                                    "'.[ray]' (or '.[dev]')")
# The node-loss run's kernels: ten of the honest example's sixteen, without the six whose jobs
# take longest on the CPU (dropout's statistical judge, adamw, int8, max_pool2d, gemv, cross
# entropy: ~60 % of the 16-kernel run's job time). Three actors, so the second node still
# has a job in flight when its raylet is killed after its first.
NODE_LOSS_TASKS = ("activation.gelu_tanh", "convolution.conv2d_3x3", "fusion.linear_bias_relu",
                   "index.embedding", "math.addcmul", "matmul.matmul", "normalization.rms_norm",
                   "normalization.softmax", "reduce.sum_rows", "spatial.upsample_bilinear2d")
HONEST_TASKS = len(NODE_LOSS_TASKS)


# ---------------------------------------------------------------- files that cross to actors
def test_pack_takes_regular_files_and_leaves_large_optional_ones(tmp_path):
    src = tmp_path / "job"
    (src / "out").mkdir(parents=True)
    (src / "plan.json").write_text("{}")
    (src / "out" / "result.json").write_text("[]")
    (src / "out" / "case_000_call_0.safetensors").write_bytes(b"x" * 100)
    (src / "link").symlink_to("/etc/passwd")
    os.mkfifo(src / "fifo")
    files, left = pack(src, 10, optional=lambda rel: rel.endswith(".safetensors"))
    assert files == {"plan.json": b"{}", "out/result.json": b"[]"}
    assert left == ("out/case_000_call_0.safetensors",)
    with pytest.raises(InfraError, match="past 3 bytes"):
        pack(src, 3)  # a file the verdict rests on never goes missing quietly


@pytest.mark.parametrize("name", ["../x", "/etc/x", "a/../../x", "a//b", "./a", "a\\b", ""])
def test_unpack_refuses_names_that_leave_the_folder(tmp_path, name):
    with pytest.raises(InfraError, match="refused"):
        unpack({name: b"x"}, tmp_path / "dest")
    assert not (tmp_path / "x").exists()


def test_unpack_never_writes_through_a_link(tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "plan.json").symlink_to(tmp_path / "outside")
    with pytest.raises(InfraError, match="cannot write"):
        unpack({"plan.json": b"evil"}, dest)
    assert not (tmp_path / "outside").exists()
    unpack({"a/b.json": b"1"}, dest)
    assert (dest / "a" / "b.json").read_bytes() == b"1"


def test_a_dead_actors_node_folder_is_swept_by_the_next(tmp_path, monkeypatch):
    """An actor killed outright (its raylet killed, SIGKILL) leaves its node folder; the next
    actor on the node removes the folders whose owner is gone, and only those."""
    from kgb.placement.ray_slot import sweep_dead_folders

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    dead = tmp_path / f"kgb-ray-abcd1234-{child.pid}-x1y2"
    alive = tmp_path / f"kgb-ray-abcd1234-{os.getpid()}-x1y2"
    other = tmp_path / "kgb-ray-notours"
    for folder in (dead, alive, other):
        (folder / "run").mkdir(parents=True)
    assert sweep_dead_folders() == [dead]
    assert alive.is_dir() and other.is_dir() and not dead.exists()


def test_gpu_slot_is_the_physical_index_ray_gave(monkeypatch):
    """Ray hides the other GPUs with CUDA_VISIBLE_DEVICES; kgb's slots name GPUs in PCI order
    (the sandbox binds /dev/nvidiaN), so the actor maps Ray's id and unhides them for its
    judge, whose device is then cuda:N of the whole machine."""
    from kgb.placement.ray_slot import _claim_device

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    assert _claim_device("cpu", []) == "cpu"
    assert os.environ["CUDA_VISIBLE_DEVICES"] == "3"
    assert _claim_device("cuda", ["3"]) == "cuda:3"
    assert "CUDA_VISIBLE_DEVICES" not in os.environ
    assert os.environ["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
    with pytest.raises(RuntimeError, match="GPU indices"):
        _claim_device("cuda", ["GPU-5f2c"])
    with pytest.raises(RuntimeError, match="exactly one GPU"):
        _claim_device("cuda", ["0", "1"])


def test_without_ray_the_option_is_one_line_and_exit_2(tmp_path):
    """`ray` not installed: one line naming the extra, exit 2 (a `ray` package that cannot be
    imported stands in for a machine without it)."""
    fake = tmp_path / "noray" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    env = dict(os.environ, PYTHONPATH=str(fake.parent))
    proc = subprocess.run([sys.executable, "-m", "kgb.cli", "verify", "examples/honest",
                           "--ray", "auto", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "pip install -e '.[ray]'" in lines[0], proc.stderr


# ---------------------------------------------------------------- a real two-node cluster
@dataclass
class Cluster:
    address: str
    env: dict[str, str]
    temp: Path
    raylets: dict[str, int]  # node resource name -> its raylet's pid


def _ray(args: list[str], env: dict[str, str]) -> None:
    proc = subprocess.run([str(RAY_BIN), *args], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def _raylets(temp: Path) -> set[int]:
    found = set()
    for proc in psutil.process_iter(["name", "cmdline"]):
        try:
            cmdline = proc.info["cmdline"] or []
            if cmdline and cmdline[0].endswith("/raylet") and any(str(temp) in a for a in cmdline):
                found.add(proc.pid)
        except psutil.Error:
            continue
    return found


def _ours(temp: Path) -> list[psutil.Process]:
    """Every process of the test's cluster: those naming its temp folder, and their trees."""
    procs: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if any(str(temp) in a for a in proc.info["cmdline"] or []):
                procs[proc.pid] = proc
                for child in proc.children(recursive=True):
                    procs[child.pid] = child
        except psutil.Error:
            continue
    return list(procs.values())


def _stop(temp: Path) -> None:
    procs = _ours(temp)
    for proc in procs:
        try:
            proc.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(procs, timeout=10)
    for proc in alive:
        try:
            proc.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=10)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    if not HAVE_RAY:
        pytest.skip("ray is not installed: pip install -e '.[ray]' (or '.[dev]')")
    temp = Path(tempfile.mkdtemp(prefix="kgbray-", dir="/tmp"))  # short: Ray's socket paths
    token = temp / "token"
    token.write_text(secrets.token_hex(32))
    # the cluster's own token, never the user's ~/.ray; nothing reported home
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token),
               RAY_USAGE_STATS_ENABLED="0")
    try:
        _ray(["start", "--head", "--port", "0", "--num-cpus", "2", "--resources",
              '{"node_a": 1}', "--temp-dir", str(temp), "--include-dashboard", "false",
              "--disable-usage-stats"], env)
        address = (temp / "ray_current_cluster").read_text().split()[0]
        head = _raylets(temp)
        _ray(["start", "--address", address, "--num-cpus", "1", "--resources",
              '{"node_b": 1}', "--disable-usage-stats"], env)
        second = _raylets(temp) - head
        assert len(head) == 1 and len(second) == 1, (head, second)
        _ROOTS.update(head | second)
        _SINCE[0] = min(psutil.Process(pid).create_time() for pid in head | second)
        yield Cluster(address, env, temp, {"node_a": head.pop(), "node_b": second.pop()})
    finally:
        _stop(temp)
        shutil.rmtree(temp, ignore_errors=True)


def _node_id(raylet: int) -> str:
    arg = next(a for a in psutil.Process(raylet).cmdline() if a.startswith("--node_id="))
    return arg.split("=", 1)[1]


def _verify(cluster: Cluster, out: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "kgb.cli", "verify", *args, "--device", "cpu", "--sandbox",
         "process", "--ray", cluster.address, "--out", str(out)],
        cwd=ROOT, env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _verdicts(report: dict) -> dict[str, tuple[str, str | None]]:
    return {j["task"]: (j["verdict"], j["rule"]) for j in report["jobs"]
            if j["verdict"] != "missing"}


BROKEN = "math.addcmul,activation.gelu_tanh"  # incorrect, crashed: short runs


@pytest.mark.slow
@needs_ray
def test_local_and_ray_give_the_same_verdicts(cluster, tmp_path, broken_run):
    """The same submission both ways: the same sandbox, layers and verdicts (incorrect and
    crashed), and the Ray run's report names the node and slot of every job. The local side
    is the session's run of the whole example (conftest.broken_run), its BROKEN jobs."""
    local = broken_run.proc
    assert local.returncode == 0, local.stderr[-2000:]
    proc = _verify(cluster, tmp_path / "ray", "examples/broken", "--only", BROKEN)
    _, err = proc.communicate(timeout=1200)
    assert proc.returncode == 0, err[-2000:]
    ray_report = json.loads((tmp_path / "ray" / "report.json").read_text())
    local_report = json.loads((broken_run.out / "report.json").read_text())
    assert _verdicts(ray_report) == {t: v for t, v in _verdicts(local_report).items()
                                     if t in BROKEN.split(",")}
    assert sorted(v for v, _ in _verdicts(ray_report).values()) == ["crashed", "incorrect"]
    nodes = {_node_id(pid) for pid in cluster.raylets.values()}
    for job in ray_report["jobs"]:
        if job["verdict"] != "missing":
            assert job["placement"]["node"] in nodes and job["placement"]["slot"] == "cpu"
            assert job["placement"]["retries"] == []
        else:
            assert job.get("placement") is None
    assert ray_report["ray"]["retried"] == {}
    from kgb.runner.regrade import regrade  # the host's files alone: placements kept

    regraded, changed = regrade(tmp_path / "ray")
    assert changed == []
    assert [j.get("placement") for j in regraded["jobs"]] == \
        [j.get("placement") for j in ray_report["jobs"]]


@pytest.mark.slow
@needs_ray
def test_a_batch_runs_every_members_jobs_on_one_set_of_actors(cluster, tmp_path):
    """`kgb verify A B --ray`: both members' jobs go to the same actors from one board (the
    actors hold every member's files, each job runs against its own member's submission), and
    each member's report has its own placements and retries."""
    from conftest import write_submission

    honest = (ROOT / "tasks/Math/addcmul/solution.py").read_text()
    wrong = honest.replace("out = x + 0.5 * t1 * t2", "out = x + 0.25 * t1 * t2")
    assert wrong != honest
    write_submission(tmp_path / "subs" / "a", {"math.addcmul": honest}, name="a")
    write_submission(tmp_path / "subs" / "b", {"math.addcmul": wrong}, name="b")
    proc = _verify(cluster, tmp_path / "out", str(tmp_path / "subs" / "a"),
                   str(tmp_path / "subs" / "b"), "--only", "math.addcmul")
    _, err = proc.communicate(timeout=1200)
    assert proc.returncode == 0, err[-2000:]
    nodes = {_node_id(pid) for pid in cluster.raylets.values()}
    verdicts = {}
    for member in ("a", "b"):
        report = json.loads((tmp_path / "out" / member / "report.json").read_text())
        (job,) = [j for j in report["jobs"] if j["task"] == "math.addcmul"]
        verdicts[member] = job["verdict"]
        assert job["placement"]["node"] in nodes and report["ray"]["retried"] == {}
    assert verdicts == {"a": "passed", "b": "incorrect"}  # each ran its own member's kernel


_ROOTS: set[int] = set()  # this module's raylets: what descends from them is this test's
_SINCE = [0.0]  # when this module's cluster started


def _this_modules(proc: psutil.Process) -> bool:
    """A process of this module's cluster or runs, not another kgb run's on the machine
    (issue 28): a descendant of its raylets or of this test process, or an orphan (re-parented
    to init) born after its cluster started."""
    try:
        chain = proc.parents()
        if {p.pid for p in chain} & (_ROOTS | {os.getpid()}):
            return True
        return proc.ppid() == 1 and proc.create_time() >= _SINCE[0]
    except psutil.Error:
        return False


def _leftovers() -> list[str]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmdline = " ".join(proc.info["cmdline"] or [])
        except psutil.Error:
            continue
        if ("ray::SlotActor" in cmdline or "kgb-ray-" in cmdline) and _this_modules(proc):
            found.append(f"{proc.pid} {cmdline[:120]}")
    return found


def _node_folders() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("kgb-ray-*"))


@pytest.mark.slow
@needs_ray
def test_sigterm_of_the_driver_leaves_no_actor_sandbox_or_judge(cluster, tmp_path):
    before = _node_folders()
    proc = _verify(cluster, tmp_path / "out", "examples/honest", "--only",
                   "activation.gelu_tanh,math.addcmul")
    deadline = time.monotonic() + 300
    while not any("_supervisor.py" in line for line in _leftovers()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1][-2000:]
        time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    deadline = time.monotonic() + 30
    while _leftovers() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _leftovers() == []
    assert _node_folders() - before == set()


VERIFIER_SCRIPT = """
import asyncio, json, sys
import kgb
suite, address, pairs = sys.argv[1], sys.argv[2], json.loads(sys.stdin.read())
async def main():
    async with kgb.Verifier(tasks=suite, device="cpu", sandbox="process", ray=address) as v:
        return v.slots, await asyncio.gather(*(v.verify(t, s) for t, s in pairs))
slots, results = asyncio.run(main())
print(json.dumps({"slots": slots, "results": [
    {**r.as_json(), "placement": r.entry.get("placement"), "type": type(r).__name__}
    for r in results]}))
"""


@pytest.mark.slow
@needs_ray
def test_the_verifier_on_ray_gives_the_local_verdicts_on_both_nodes(cluster, tmp_path):
    """kgb.Verifier(ray=ADDRESS): its slots are the cluster's actors (one per CPU: 3), five
    concurrent verify() calls — correct, wrong (two tasks each) and a PyTorch fallback — get
    the verdicts the local Verifier and `kgb serve` give them (tests/test_serve.py's eight
    requests), as JobResults placed on both nodes; closing leaves no actor or node folder."""
    from conftest import trimmed_suite

    suite = trimmed_suite(tmp_path / "suite", ["activation.relu", "math.addcmul"], shapes=1)
    relu = (ROOT / "tasks/Activation/relu/solution.py").read_text()
    addcmul = (ROOT / "tasks/Math/addcmul/solution.py").read_text()
    cases = [("activation.relu", relu, "passed", None),
             ("activation.relu", relu.replace("tl.where(x > 0.0, x, 0.0)",
                                              "tl.where(x > 0.0, x, 0.1 * x)"), "incorrect", None),
             ("math.addcmul", addcmul, "passed", None),
             ("math.addcmul", addcmul.replace("0.5 * t1 * t2", "0.25 * t1 * t2"), "incorrect",
              None),
             ("math.addcmul", addcmul.replace("    return out",
                                              "    return torch.addcmul(x, t1, t2, value=0.5)"),
              "rejected", "S110")]
    assert len({source for _, source, _, _ in cases}) == len(cases)
    before = _node_folders()
    proc = subprocess.run([sys.executable, "-c", VERIFIER_SCRIPT, str(suite), cluster.address],
                          input=json.dumps([(t, s) for t, s, _, _ in cases]), cwd=ROOT,
                          env=cluster.env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    answer = json.loads(proc.stdout.strip().splitlines()[-1])
    assert answer["slots"] == 3  # the cluster's three CPUs
    nodes = {_node_id(pid) for pid in cluster.raylets.values()}
    for (task, _, verdict, rule), result in zip(cases, answer["results"]):
        assert result["type"] == "JobResult" and result["task"] == task
        assert (result["verdict"], result["status"]) == (verdict, "judged"), result
        assert result["reward_ready"]["correct"] is (verdict == "passed")
        if rule:
            assert result["rule"] == rule
        assert result["placement"]["node"] in nodes and result["placement"]["retries"] == []
    assert {r["placement"]["node"] for r in answer["results"]} == nodes  # both nodes ran jobs
    deadline = time.monotonic() + 30  # the actors closed: their node folders are gone
    while _node_folders() - before and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _node_folders() - before == set()


@pytest.mark.slow
@needs_ray
def test_a_node_lost_mid_run_loses_nothing_and_counts_nothing_twice(cluster, tmp_path):
    """(Last in this file: it kills the second node for good.) 10 honest kernels
    (NODE_LOSS_TASKS) on both nodes (three actors); once the second node
    has finished a job, its raylet is killed while it runs the next: that job runs again on
    the first node, the run ends with 10 passed, each once, and the report says which job was
    retried and why."""
    node_b = _node_id(cluster.raylets["node_b"])
    out = tmp_path / "out"
    proc = _verify(cluster, out, "examples/honest", "--only", ",".join(NODE_LOSS_TASKS))
    deadline = time.monotonic() + 1200
    while not any(node_b in p.read_text() for p in out.glob("jobs/*/placement.json")):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1][-2000:]
        time.sleep(0.5)
    os.kill(cluster.raylets["node_b"], signal.SIGKILL)
    _, err = proc.communicate(timeout=2400)
    assert proc.returncode == 0, err[-3000:]
    report = json.loads((out / "report.json").read_text())
    jobs = [j for j in report["jobs"] if j["verdict"] != "missing"]
    assert report["summary"]["counts"]["passed"] == HONEST_TASKS == len(jobs)
    assert len({j["task"] for j in jobs}) == HONEST_TASKS  # none twice
    assert len(list((out / "jobs").iterdir())) == HONEST_TASKS
    node_a = _node_id(cluster.raylets["node_a"])
    assert {j["placement"]["node"] for j in jobs} == {node_a, node_b}  # both nodes ran jobs
    retried = {j["task"]: j["placement"]["retries"] for j in jobs if j["placement"]["retries"]}
    assert retried, "the job in flight on the lost node was not run again"
    for task, retries in retried.items():
        assert [r["node"] for r in retries] == [node_b]
        assert retries[0]["reason"]
        assert report["ray"]["retried"][task] == retries
        assert next(j for j in jobs if j["task"] == task)["placement"]["node"] == node_a
    deadline = time.monotonic() + 60  # the lost node's actor and sandbox died with it
    while _leftovers() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _leftovers() == []
