"""Large outputs on the CPU analog (issue 24, "bytes moved once"): where a job whose outputs are
GB-sized spends its time, per phase, on the process and bwrap backends. A benchmark, not a test.

It builds, in a temporary folder, a one-task suite (a copy of the suite's activation.relu with
one tiny shape and one shape of about --gb GiB of float32 output) and a submission (the suite's
own relu with a 1M-element block, so Triton's interpreter runs it in seconds), then:

1. per-call phases, in this process, with the worker's and the judge's own functions on one
   call of the big case: inputs (drawn from the seed), clones (the mutation check's copy),
   saving outputs (safetensors), judge loading, deleting the file;
2. `kgb verify` of it on each backend, and the job's phases: the host's phases.json (sandbox,
   judge, total), the worker's stages on the supervisor's clock (exec.json marks), the sandbox's
   own start/teardown (its wall time less the worker's life) and the bytes it copied out.

3. (`--teardown N`) the sandbox alone, N rounds alternating copy-out and hand-over in place
   (issue 24, session 32): a worker that writes three outputs of --gb GiB, then the sandbox's
   own time after the worker's end (go() less the worker's life, plus the release of a held
   sandbox), the judge's read of one output (every byte touched) from where it lies, and the
   CPU seconds of this process and its reaped children (the supervisor's copy-out).

`KGB_HAND_OVER=0` in the environment gives kgb verify's "before" (everything copied out).

Usage: python scripts/bench_large_outputs.py [--gb 1.0] [--backends process,bwrap]
           [--out /tmp/kgb-large] [--skip-verify] [--teardown N]"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's kgb (a copy of an older commit: its "before")
TASK = ROOT / "tasks" / "Activation" / "relu"
MANIFEST = """[submission]
name = "large-outputs"
generator = "scripts/bench_large_outputs.py"
model = "none"
created = "2026-11-27"

[[kernels]]
task = "activation.relu"
file = "kernels/relu.py"
"""


def build(folder: Path, gib: float) -> tuple[Path, Path, dict[str, int]]:
    """(suite, submission, the big shape's dims)."""
    n = 16384
    m = max(1, int(gib * (1 << 30) / 4 / n))
    dims = {"M": m, "N": n + 1}  # a non-power-of-two row, as the suite asks of a shape
    suite = folder / "suite" / "Activation" / "relu"
    shutil.copytree(TASK, suite)
    text = (suite / "task.toml").read_text()
    head, _, rest = text.partition("[[shapes]]")
    tail = re.split(r"\n(?=\[(?!\[shapes\]))", rest, maxsplit=1)
    head = head.replace('dtypes = ["float32", "float16", "bfloat16"]', 'dtypes = ["float32"]')
    shapes = ('[[shapes]]\nname = "tiny"\ndims = { M = 3, N = 5 }\n'
              'tags = ["tiny", "non-pow2", "rectangular"]\n\n'
              f'[[shapes]]\nname = "big"\ndims = {{ M = {dims["M"]}, N = {dims["N"]} }}\n'
              'tags = ["large", "non-pow2", "rectangular"]\n')
    (suite / "task.toml").write_text(head + shapes + ("\n" + tail[1] if len(tail) > 1 else ""))
    sub = folder / "submission"
    (sub / "kernels").mkdir(parents=True)
    kernel = (TASK / "solution.py").read_text().replace("BLOCK = 1024", "BLOCK = 1 << 20")
    (sub / "kernels" / "relu.py").write_text(kernel)
    (sub / "manifest.toml").write_text(MANIFEST)
    return folder / "suite", sub, dims


def per_call(suite: Path, dims: dict[str, int], scratch: Path) -> list[tuple[str, float]]:
    """One call of the big case through the worker's and the judge's own steps."""
    import torch

    from kgb import protocol as P
    from kgb.judge.judge import load_outputs
    from kgb.tasks.casegen import call_inputs, fingerprint, load_module
    from kgb.worker.outputs import save_outputs

    inputs_module = load_module(suite / "Activation" / "relu" / "inputs.py", "bench_inputs")
    laps: list[tuple[str, float]] = []

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        laps.append((name, now - since))
        return now

    t = time.perf_counter()
    inputs = call_inputs(inputs_module, dims, "float32", "standard", "contiguous", (), None,
                         "cpu", 1234)
    t = lap("inputs (drawn from the seed)", t)
    fingerprint(inputs)
    t = lap("input fingerprint", t)
    originals = [x.clone() for x in inputs]
    t = lap("clones (mutation check)", t)
    out = torch.relu(inputs[0])
    t = time.perf_counter()
    path = scratch / P.output_file(1, 0)
    save_outputs((out,), path)
    t = lap("saving outputs (safetensors)", t)
    loaded = load_outputs(scratch, path.name, "cpu", 1 << 40)
    float(loaded[0].sum())  # touch every page: a lazy map is not a load
    t = lap("judge loading (read every byte)", t)
    del loaded, originals
    path.unlink()
    lap("deleting the file", t)
    return laps


def _marks(exec_record: dict) -> list[tuple[str, float]]:
    """Each worker stage's length from the supervisor's marks (label, seconds)."""
    marks = [(str(m["label"]), float(m["t"])) for m in exec_record.get("marks", [])]
    ends = [at for _, at in marks[1:]] + [exec_record.get("worker_s") or marks[-1][1]] \
        if marks else []
    return [(label, round(end - at, 3)) for (label, at), end in zip(marks, ends)]


def verify(backend: str, suite: Path, sub: Path, out: Path) -> dict:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kgb.cli", "verify", str(sub), "--tasks",
                           str(suite), "--device", "cpu", "--sandbox", backend, "--out",
                           str(out), "--force", "--limit", "output=16g"],
                          capture_output=True, text=True, cwd=ROOT)
    facts = job_facts(out / "jobs" / "activation.relu", proc.stderr)
    return {"backend": backend, "rc": proc.returncode,
            "kgb_wall_s": round(time.perf_counter() - start, 2), **facts}


def job_facts(job: Path, stderr: str = "") -> dict:
    """The job's phases from the files kgb wrote (also: `--facts JOB_DIR` of a finished run)."""
    facts: dict = {}
    try:
        facts["phases"] = json.loads((job / "phases.json").read_text())
        record = json.loads((job / "exec.json").read_text())
        facts["worker_s"] = record.get("worker_s")
        facts["sandbox_own_s"] = round(record["wall_s"] - (record.get("worker_s") or 0), 3)
        facts["stages"] = _marks(record)
        facts["output_used_gib"] = round((record.get("output_used") or 0) / (1 << 30), 2)
        facts["held_gib"] = None if record.get("held_bytes") is None else \
            round(record["held_bytes"] / (1 << 30), 2)  # read in place (issue 24, s32)
        verdict = json.loads((job / "verdict.json").read_text())["verdict"]
        facts["verdict"] = f"{verdict['verdict']} {verdict.get('rule') or ''}".strip()
        facts["judge_steps"] = json.loads((job / "judge.json").read_text()).get("phases")
    except (OSError, ValueError, KeyError) as exc:
        facts["error"] = f"{exc!r}; stderr tail: {stderr[-600:]}"
    return facts


WRITER = """
import json, os, struct
n = {n}
header = json.dumps({{"out0": {{"dtype": "F32", "shape": [n], "data_offsets": [0, 4 * n]}}}})
header = header.encode() + b" " * (-len(header) % 8)
chunk = bytes(range(256)) * (1 << 18)  # 64 MiB of float32 bit patterns
for i in range(3):
    with open(f"case_000_call_{{i}}.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header)
        left = 4 * n
        while left:
            left -= f.write(chunk[:min(left, len(chunk))])
open("result.json", "w").write("{{}}")
"""


def teardown(backend: str, gib: float, rounds: int, out: Path) -> list[dict]:
    """Copy-out vs hand-over in place, alternated, on one backend (see the docstring, 3)."""
    import resource

    from kgb import protocol as P
    from kgb.judge.judge import load_outputs
    from kgb.runner.execute import EVIDENCE_BYTES
    from kgb.sandbox import create_sandbox
    from kgb.sandbox.base import Limits, SandboxRequest

    n = int(gib * (1 << 30)) // 4
    cap = max(8 << 30, 3 * 4 * n + (1 << 30))  # the three outputs fit the output folder
    sandbox = create_sandbox(backend)
    rows = []
    try:
        for i in range(2 * rounds):
            mode = ("copy-out", "in place")[i % 2]
            base = out / f"teardown-{backend}-{i}"
            shutil.rmtree(base, ignore_errors=True)
            (base / "out").mkdir(parents=True)
            base.chmod(0o755)
            request = SandboxRequest(
                argv=(sys.executable, "-c", WRITER.format(n=n)), out_dir=base / "out",
                ro_paths=(), env=(), tmp_dir=base / "tmp", cwd=base / "out",
                keep_names=P.OUTPUT_NAMES, label=f"bench/teardown-{i}",
                hand_over=EVIDENCE_BYTES if mode == "in place" else None)
            cpu0 = time.process_time()
            kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            result = sandbox.start(request, Limits(wall_time_s=600, output_bytes=cap)).go()
            went = time.perf_counter() - start
            folder = Path(result.held.folder) if result.held else base / "out"
            ident = result.held.ident if result.held else ()
            at = time.perf_counter()
            loaded = load_outputs(folder, P.output_file(0, 0), "cpu", cap, ident)
            float(loaded[0].sum())  # touch every page: a lazy map is not a load
            read = time.perf_counter() - at
            del loaded
            at = time.perf_counter()
            if result.held:
                result.held.release()
            released = time.perf_counter() - at
            at = time.perf_counter()
            shutil.rmtree(base)  # the runner's _prune_large_files, on the host disk
            deleted = time.perf_counter() - at
            kids = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = time.process_time() - cpu0 + (kids.ru_utime - kids0.ru_utime) + \
                (kids.ru_stime - kids0.ru_stime)
            rows.append({"backend": backend, "mode": mode, "rc": result.returncode,
                         "worker_s": result.worker_s,
                         "teardown_s": round(went - (result.worker_s or 0) + released, 2),
                         "release_s": round(released, 3), "judge_read_s": round(read, 2),
                         "delete_s": round(deleted, 2), "cpu_s": round(cpu, 2),
                         "notes": list(result.notes)[:1]})
            print(json.dumps(rows[-1]), flush=True)
    finally:
        sandbox.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--backends", default="process,bwrap")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "kgb-large")
    parser.add_argument("--skip-verify", action="store_true")
    parser.add_argument("--facts", type=Path, help="only print a finished job folder's phases")
    parser.add_argument("--teardown", type=int, default=0,
                        help="only the sandbox's teardown: N rounds of copy-out vs in place")
    args = parser.parse_args()
    if args.facts:
        print(json.dumps(job_facts(args.facts), indent=1))
        return 0
    if args.teardown:
        for backend in args.backends.split(","):
            teardown(backend, args.gb, args.teardown, args.out)
        return 0
    work = Path(tempfile.mkdtemp(prefix="kgb-large-"))
    try:
        suite, sub, dims = build(work, args.gb)
        scratch = work / "scratch"
        scratch.mkdir()
        print(f"big case: relu {dims['M']} x {dims['N']} float32 "
              f"({dims['M'] * dims['N'] * 4 / (1 << 30):.2f} GiB per output)")
        print("\none call, in process (the worker's and the judge's own functions):")
        for name, seconds in per_call(suite, dims, scratch):
            print(f"  {name:36s} {seconds:7.2f} s")
        if args.skip_verify:
            return 0
        for backend in args.backends.split(","):
            facts = verify(backend, suite, sub, args.out / backend)
            print(f"\nkgb verify, {backend}: {json.dumps(facts, indent=1)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    sys.exit(main())
