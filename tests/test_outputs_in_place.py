"""Outputs handed over in place (issue 24, "bytes moved once"; kgb/sandbox/handover.py).

On bwrap and docker, once the worker's tree is proven dead, the supervisor sweeps the output
tmpfs in place, copies out only small files, and the sandbox stays until the runner releases it
after the judge, who reads the rest through /proc/PID/root. These tests prove:

- the sweep leaves only regular files with protocol names: a link to a host file (the run's
  reference cache), a fifo, a folder under a protocol name, an unknown name are gone; small
  files are copied to the host folder, large ones are not; release leaves no process and no
  container, also when the judge fails (the runner's `finally`);
- a process that keeps rewriting an output after its worker ended cannot: nothing of the tree
  survives a hand-over, and without `tree_killed` nothing is held (supervisor and host side);
- a host that cannot read /proc/PID/root falls back to copying everything out;
- the judge's reader never resolves the folder, never follows a link, never blocks on a fifo,
  and refuses a folder whose identity is not the sandbox's;
- through `kgb verify`: an honest kernel passes with the in-place path taken (exec.json's
  held_bytes) and the same verdicts as copy-out, a kernel that plants links to the reference
  cache, a fifo and a folder under protocol names ends `incorrect`.
"""

from __future__ import annotations

import base64
import os
import secrets
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil
import pytest
import torch
from safetensors.torch import save

from kgb import protocol as P
from kgb.judge.judge import load_outputs
from kgb.sandbox import _supervisor, available_backends, create_sandbox, handover
from kgb.sandbox.base import Limits, SandboxRequest
from kgb.sandbox.subproc import Child

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = [pytest.param("docker", marks=pytest.mark.docker),
            pytest.param("bwrap", marks=pytest.mark.bwrap)]
SMALL = 1000  # the hand-over's small-file bound in these tests
BIG = torch.arange(4096, dtype=torch.float32)  # 16 KiB: held in place
TINY = torch.ones(3)  # copied out as well


def _backend(name: str):
    reasons = available_backends()
    if reasons.get(name, "not importable"):
        pytest.skip(f"{name} backend unavailable: {reasons.get(name)}")
    return create_sandbox(name)


def _folders() -> tuple[Path, Path]:
    base = Path(tempfile.mkdtemp(prefix="kgb-inplace-"))  # the worker's uid must reach it
    base.chmod(0o755)
    (base / "out").mkdir()
    return base, base / "out"


def _plant(secret: Path, marker: str) -> str:
    """What the worker leaves: honest outputs, and entries under protocol names that must not
    be read — a link to a host file (the run's reference cache), a fifo, a folder."""
    big = base64.b64encode(save({"out0": BIG})).decode()
    tiny = base64.b64encode(save({"out0": TINY})).decode()
    return (f"import base64, os  # {marker}\n"
            f"open('case_000_call_0.safetensors', 'wb').write(base64.b64decode('{big}'))\n"
            f"open('case_000_call_1.safetensors', 'wb').write(base64.b64decode('{tiny}'))\n"
            "open('result.json', 'w').write('{}')\n"
            f"os.symlink('{secret}', 'case_001_call_0.safetensors')\n"
            "os.mkfifo('case_002_call_0.safetensors')\n"
            "os.mkdir('case_003_call_0.safetensors')\n"
            "open('case_003_call_0.safetensors/x', 'w').write('x')\n"
            "open('junk.bin', 'w').write('junk')\n"
            "print('x' * 299999)\n")  # a held supervisor's stdout has no EOF: read to its end


def _request(code: str, out: Path, base: Path, label: str, small: int = SMALL
             ) -> SandboxRequest:
    return SandboxRequest(argv=(sys.executable, "-c", code), out_dir=out, ro_paths=(), env=(),
                          tmp_dir=base / "tmp", cwd=out, keep_names=P.OUTPUT_NAMES,
                          hand_over=small, label=label)


def _left(marker: str) -> list[int]:
    """Processes that name `marker`: the sandbox's own (bwrap, the supervisor) and workers."""
    return [p.pid for p in psutil.process_iter(["cmdline"])
            if any(marker in a for a in p.info["cmdline"] or [])]


def _workers(marker: str) -> list[int]:
    """The worker and what it forked (`python -c CODE`), not the supervisor holding it."""
    return [p.pid for p in psutil.process_iter(["cmdline"])
            if (c := p.info["cmdline"] or []) and len(c) > 2 and c[1] == "-c" and marker in c[2]]


def _containers(label: str) -> list:
    import docker

    client = docker.from_env()
    try:
        return client.containers.list(all=True, filters={"label": f"kgb.label={label}"})
    finally:
        client.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_held_folder_keeps_only_regular_protocol_files_and_release_leaves_nothing(
        backend, tmp_path):
    from kgb.runner.execute import _Launch

    sandbox = _backend(backend)
    base, out = _folders()
    secret = tmp_path / "refcache" / "ref.safetensors"  # the trusted side's file
    secret.parent.mkdir()
    secret.write_bytes(save({"out0": BIG + 1}))
    marker, label = f"kgb-inplace-{secrets.token_hex(4)}", f"t/inplace-{secrets.token_hex(3)}"
    try:
        launch = _Launch(sandbox.start(_request(_plant(secret, marker), out, base, label),
                                       Limits(wall_time_s=60)), base / "tmp", out)
        try:
            result = launch.go()
            assert result.returncode == 0, result.stderr[-500:]
            assert len(result.stdout) == 300000
            held = result.held
            assert held is not None, result.notes  # root beside the engine: it can read there
            assert held.folder.startswith("/proc/") and held.folder.endswith(str(out))
            names = {"case_000_call_0.safetensors", "case_000_call_1.safetensors",
                     "result.json"}
            assert set(os.listdir(held.folder)) == names  # link, fifo, folder, junk: swept
            assert {n for n, _ in held.files} == names
            assert any("4 output entries were swept" in n for n in result.notes), result.notes
            # small files copied to the host folder too (evidence), the large one only held
            assert set(os.listdir(out)) == names - {"case_000_call_0.safetensors"}
            read = load_outputs(Path(held.folder), "case_000_call_0.safetensors", "cpu",
                                1 << 30, held.ident)
            assert torch.equal(read[0], BIG)
            for planted in ("case_001_call_0.safetensors", "case_002_call_0.safetensors",
                            "case_003_call_0.safetensors"):
                with pytest.raises(ValueError, match="missing"):
                    load_outputs(Path(held.folder), planted, "cpu", 1 << 30, held.ident)
            # the host's own folder at that path is not the sandbox's
            with pytest.raises(ValueError, match="not the sandbox's"):
                load_outputs(out, "case_000_call_1.safetensors", "cpu", 1 << 30, held.ident)
            raise RuntimeError("the judge failed")  # the runner's finally must still release
        except RuntimeError as exc:
            assert "judge failed" in str(exc)
        finally:
            launch.abandon()
        assert not os.path.exists(held.folder)
        time.sleep(0.5)
        assert not _left(marker) and not _left(str(out))
        if backend == "docker":
            assert not _containers(label)
    finally:
        sandbox.close()


REWRITER = """
import os, sys, time  # {marker}
open('case_000_call_0.safetensors', 'wb').write(b'first')
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # an escapee that keeps rewriting the output after the worker ends
        while True:
            fd = os.open('case_000_call_0.safetensors', os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.write(fd, b'rewritten %f' % time.time())
            os.close(fd)
            time.sleep(0.01)
    os._exit(0)
time.sleep(0.3)
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_escapee_that_rewrites_an_output_is_dead_before_the_hand_over(backend):
    """The supervisor holds only once the tree is proven dead: what the judge reads cannot
    change while it reads (the escapee, in the sandbox's pid namespace or uid, was killed)."""
    sandbox = _backend(backend)
    base, out = _folders()
    marker = f"kgb-rewriter-{secrets.token_hex(4)}"
    started = sandbox.start(_request(REWRITER.format(marker=marker), out, base,
                                     f"t/rewriter-{secrets.token_hex(3)}", small=0),
                            Limits(wall_time_s=60))
    try:
        result = started.go()
        assert result.held is not None, result.notes
        path = Path(result.held.folder) / "case_000_call_0.safetensors"
        first = path.read_bytes()
        time.sleep(0.5)
        assert path.read_bytes() == first  # nobody writes any more
        assert not _workers(marker)
        result.held.release()
    finally:
        sandbox.close()


def test_nothing_is_held_unless_the_tree_is_proven_dead(tmp_path):
    """A survivor (tree_killed false: a process the in-sandbox kill did not reach) could still
    write: the supervisor copies out as before and the host holds nothing."""
    src, dst = tmp_path / "tmpfs", tmp_path / "host"
    src.mkdir()
    dst.mkdir()
    (src / "case_000_call_0.safetensors").write_bytes(b"x" * 5000)
    (src / "junk").write_text("junk")
    cfg = {"hand_over": 10, "keep": P.OUTPUT_NAMES, "out_dir": str(src), "out_bytes": 1 << 20}
    fd = os.open(dst, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for alive in ({"tree_killed": False}, {"tree_killed": True, "not_started": "x"}):
            report, notes = dict(alive), []
            assert not _supervisor._settle(cfg, report, fd, b"n" * 32, notes)
            assert "held" not in report and report["copied_bytes"] == 5000
        report = {"tree_killed": True}
        assert not _supervisor._settle(cfg, report, fd, None, [])  # no nonce from the host
        assert "held" not in report
        held = {"tree_killed": True}
        assert _supervisor._settle(cfg, held, fd, b"n" * 32, [])
        assert set(held["held"]["files"]) == {"case_000_call_0.safetensors"}
        assert not (src / "junk").exists()
    finally:
        os.close(fd)
    entry = {"files": {"case_000_call_0.safetensors": 5000}, "ident": [1, 2]}
    assert handover.described({"tree_killed": True, "held": entry}, "held") is not None
    assert handover.described({"tree_killed": False, "held": entry}, "held") is None
    assert handover.described({"held": entry}, "held") is None
    bad = dict(entry, files={"../x": 1})
    assert handover.described({"tree_killed": True, "held": bad}, "held") is None


def test_only_the_hosts_nonce_makes_the_host_believe_a_held_report(tmp_path):
    """The supervisor's held line ends with a secret the host wrote on its stdin; a forged
    line (any other nonce) is read as output and the host waits for the process's end."""
    nonce = secrets.token_hex(16).encode()
    sentinel = _supervisor.HELD_TAG + nonce + b"\n"
    forged = _supervisor.HELD_TAG + secrets.token_hex(16).encode() + b"\n"
    script = ("import sys, time\nsys.stderr.buffer.write(sys.argv[1].encode()); "
              "sys.stderr.flush(); sys.stdin.readline()\n")
    for line, held in ((forged, False), (sentinel, True)):
        child = Child([sys.executable, "-c", script, line.decode()], dict(os.environ), 1 << 20,
                      stdin_pipe=True, sentinel=sentinel)
        if not held:  # it waits for a line on stdin: only the host's deadline ends it
            outcome = child.wait(1.5, raw=True)
            assert outcome.timed_out and not outcome.held
            continue
        outcome = child.wait(30, raw=True)
        assert outcome.held and child.proc.poll() is None  # alive, on purpose
        child.finish_held(b"release\n", 10)
        assert child.proc.poll() is not None


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_host_that_cannot_read_in_place_copies_everything_out(backend, monkeypatch):
    sandbox = _backend(backend)
    base, out = _folders()
    monkeypatch.setattr(handover, "locate", lambda *a, **k: None)
    marker, label = f"kgb-nolocate-{secrets.token_hex(4)}", f"t/nolocate-{secrets.token_hex(3)}"
    try:
        result = sandbox.start(_request(_plant(base / "nothing", marker), out, base, label),
                               Limits(wall_time_s=60)).go()
    finally:
        sandbox.close()
    assert result.held is None and result.returncode == 0
    assert set(os.listdir(out)) == {"case_000_call_0.safetensors",
                                    "case_000_call_1.safetensors", "result.json"}
    assert torch.equal(load_outputs(out, "case_000_call_0.safetensors", "cpu", 1 << 30)[0], BIG)
    time.sleep(0.5)
    assert not _left(marker)
    if backend == "docker":
        assert not _containers(label)
    else:
        assert any("copied out" in n for n in result.notes), result.notes


def test_the_judges_reader_never_follows_blocks_or_resolves(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    name = P.output_file(0, 0)
    (out / name).write_bytes(save({"out0": TINY}))
    st = os.stat(out)
    ident = (st.st_dev, st.st_ino)
    # through a magic link (/proc/self/root here; /proc/PID/root of a sandbox in a run)
    magic = Path(f"/proc/self/root{out}")
    assert torch.equal(load_outputs(magic, name, "cpu", 1 << 20, ident)[0], TINY)
    with pytest.raises(ValueError, match="not the sandbox's"):
        load_outputs(magic, name, "cpu", 1 << 20, (ident[0], ident[1] + 1))
    os.mkfifo(out / P.output_file(0, 1))  # nobody writes: a blocking open would hang
    (out / P.output_file(0, 2)).mkdir()
    (out / P.output_file(0, 3)).symlink_to(out / name)
    for call in (1, 2, 3):
        done: list[str] = []

        def read(call: int = call, done: list[str] = done) -> None:
            try:
                load_outputs(out, P.output_file(0, call), "cpu", 1 << 20, ident)
            except ValueError as exc:
                done.append(str(exc))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(10)
        assert done and "missing" in done[0], (call, done)
    with pytest.raises(ValueError, match="not inside"):
        load_outputs(out, f"../out/{name}", "cpu", 1 << 20)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_kgb_verify_reads_in_place_with_the_verdicts_of_copy_out(backend, tmp_path,
                                                                 monkeypatch):
    """Through the whole pipeline, in place (KGB_HAND_OVER=1: every output counts as large)
    and copied out (=0): the honest kernel passes both ways, the planter ends `incorrect` both
    ways, and nothing of either run is left (processes, containers)."""
    import kgb.runner.execute as execute
    from kgb.runner.verify import VerifyOptions, run_verify
    from kgb.suite.corpus import trimmed_suite

    _backend(backend).close()
    monkeypatch.setattr(execute, "static_findings", lambda source, job: [])  # the sandbox alone
    suite = trimmed_suite(tmp_path / "suite", ["activation.relu", "math.addcmul"], shapes=1)
    verdicts, held = {}, {}
    for mode in ("1", "0"):
        monkeypatch.setenv("KGB_HAND_OVER", mode)
        out = tmp_path / f"run-{mode}"
        report = run_verify(VerifyOptions(
            submission=ROOT / "tests" / "fixtures" / "inplace", tasks_dir=suite, out_dir=out,
            device="cpu", sandbox=backend, timeout_s=120, jobs=2), as_json=True)
        verdicts[mode] = {job["task"]: job["verdict"] for job in report["jobs"]}
        held[mode] = {task: P.read(P.ExecRecord, out / "jobs" / task / P.EXEC_FILE,
                                   64 << 20).held_bytes for task in verdicts[mode]}
        time.sleep(0.5)
        assert not _left(str(out)), f"processes of the {mode} run outlived it"
        if backend == "docker":
            assert not _own_containers()
    assert verdicts["1"] == verdicts["0"] == {"activation.relu": "passed",
                                              "math.addcmul": "incorrect"}, verdicts
    assert held["1"]["activation.relu"] and held["0"]["activation.relu"] is None, held


def _own_containers() -> list:
    """Containers this process's runs started (kgb.owner = host:pid) still there."""
    import docker

    client = docker.from_env()
    try:
        return [c for c in client.containers.list(all=True)
                if c.labels.get("kgb.owner", "").endswith(f":{os.getpid()}")]
    finally:
        client.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_worker_that_locks_its_folder_is_never_read_through_a_link(backend):
    """The worker plants a link under a protocol name and takes the folder's write permission
    away, so a supervisor without privileges (docker's, uid 65534) cannot sweep it: nothing is
    held then (copy-out, which skips links); bwrap's root supervisor sweeps it anyway."""
    sandbox = _backend(backend)
    base, out = _folders()
    code = (_plant(base / "nothing", "lock") + "os.chmod('.', 0o500)\n")
    try:
        result = sandbox.start(_request(code, out, base, f"t/lock-{secrets.token_hex(3)}"),
                               Limits(wall_time_s=60)).go()
    finally:
        sandbox.close()
    try:
        folder = Path(result.held.folder) if result.held else out
        ident = result.held.ident if result.held else ()
        assert not (folder / "case_001_call_0.safetensors").is_symlink()
        with pytest.raises(ValueError, match="missing"):
            load_outputs(folder, "case_001_call_0.safetensors", "cpu", 1 << 30, ident)
        read = load_outputs(folder, "case_000_call_0.safetensors", "cpu", 1 << 30, ident)
        assert torch.equal(read[0], BIG)
        if backend == "docker":  # its supervisor could not sweep: copied out instead
            assert result.held is None, result.notes
            assert any("sweeping the output folder failed" in n for n in result.notes)
    finally:
        if result.held:
            result.held.release()


@pytest.mark.bwrap
def test_a_held_sandbox_under_the_timing_lock_keeps_its_windows_and_is_released():
    """On a GPU several timed jobs share, the supervisor's stdin carries the lock's grants
    and then, held, the release: a job that timed inside a granted window is handed over
    with its window recorded, and ends at release (the GPU path, run on the CPU here)."""
    from kgb.runner.gpu_share import GpuShare

    sandbox = _backend("bwrap")
    base, out = _folders()
    fixtures = ROOT / "tests" / "fixtures" / "timing_lock"
    code = (f"import runpy, sys; sys.path.insert(0, {str(fixtures)!r}); "
            "open('result.json', 'w').write('{}'); sys.argv = ['honest', '0.2', '0.1']; "
            f"runpy.run_path({str(fixtures / 'honest.py')!r}, run_name='__main__')")
    share = GpuShare("cpu")
    request = SandboxRequest(
        argv=(sys.executable, "-c", code), out_dir=out, ro_paths=(fixtures,),
        env=(("PYTHONDONTWRITEBYTECODE", "1"),), tmp_dir=base / "tmp", cwd=out,
        keep_names=P.OUTPUT_NAMES, hand_over=SMALL, label="t/lock-held", channel=True,
        share=share)
    try:
        result = sandbox.start(request, Limits(wall_time_s=60, compile_time_s=0.0)).go()
    finally:
        sandbox.close()
    assert result.returncode == 0, result.stderr[-500:]
    assert "answer T " in result.stdout and "@@kgb-lock@@" not in result.stdout
    windows = (result.channel or {}).get("windows") or []
    assert len(windows) == 1 and windows[0][2], windows  # one exclusive window
    assert result.held is not None and {n for n, _ in result.held.files} == {"result.json"}
    folder = result.held.folder
    result.held.release()
    assert not os.path.exists(folder)
