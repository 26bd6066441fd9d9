"""The Ray driver's own cost per job, toward a thousand GPUs (docs/scale.md).

    .venv/bin/python scripts/bench_ray_driver.py [--jobs 1000 10000] [--actors 32]
        [--nodes 4] [--sleep 0.5] [--sample OUT/jobs/TASK] [--evidence]

A local Ray cluster of `--nodes` fake nodes (`ray start`, one custom resource each) holds
`--actors` stand-in slot actors spread over them. Each job sleeps `--sleep` seconds on its actor
(the GPU's work, which costs the driver nothing) and hands back a real finished job folder — the
files of `--sample`, by default one job of the honest example verified here first; its outputs
only with `--evidence` — so the driver does everything it does in a real run: kgb's scheduler (kgb.runner.schedule, one thread
per slot), kgb.placement.ray_host (take an idle actor, submit, wait, fetch the folder), writing
the folder into OUT/jobs/<id>/, grading it (kgb.runner.grade) and journaling it.

Printed per run: the driver's CPU time per job (its process, Ray's core-worker threads
included) — the figure that says whether a fleet is host-bound: one host core keeps
1000 / (ms per job) jobs a second going — and the wall time against the ideal
(jobs / actors × sleep). Not a test: the figures depend on the machine."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kgb import protocol as P  # noqa: E402
from kgb.placement.files import pack  # noqa: E402
from kgb.placement.ray_slot import Answer  # noqa: E402


class SleepingSlot:
    """SlotActor's methods, with a sleep for the job's work and a fixed folder as its result."""

    def __init__(self, spec, bundle, name: str) -> None:
        import ray

        self.name = name
        self.node = ray.get_runtime_context().get_node_id()
        self.files: dict[str, bytes] = {}
        self.sleep_s = 0.0

    def load(self, files: dict[str, bytes], sleep_s: float) -> None:
        self.files, self.sleep_s = files, sleep_s

    def ready(self) -> tuple[str, str, str, str]:
        return self.node, "127.0.0.1", "cpu", "cpu"

    def run(self, job) -> Answer:
        time.sleep(self.sleep_s)
        return Answer(self.files, (), self.node, "127.0.0.1", "cpu", self.name)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


class _Quiet:
    def start(self, task: str) -> None:
        pass

    def done(self, task: str, verdict: str) -> None:
        pass


def sample_job(path: Path | None, scratch: Path) -> Path:
    """A finished job folder: `path`, or one honest job verified here now (a minute or so)."""
    if path is not None:
        return path
    out = scratch / "sample"
    subprocess.run([sys.executable, "-m", "kgb.cli", "verify", "examples/honest", "--only",
                    "activation.gelu_tanh", "--device", "cpu", "--sandbox", "process",
                    "--out", str(out), "--json"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return out / "jobs" / "activation.gelu_tanh"


def _ray_start(args: list[str], env: dict[str, str]) -> None:
    proc = subprocess.run([str(Path(sys.executable).parent / "ray"), "start", *args], env=env,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"ray start failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")


def start_nodes(count: int, actors: int, temp: Path, env: dict[str, str]) -> str:
    per_node = max(1, -(-actors // count))
    _ray_start(["--head", "--port", "0", "--num-cpus", str(per_node), "--resources",
                json.dumps({"fake_node_0": 1}), "--temp-dir", str(temp),
                "--include-dashboard", "false", "--disable-usage-stats"], env)
    address = (temp / "ray_current_cluster").read_text().split()[0]
    for n in range(1, count):
        _ray_start(["--address", address, "--num-cpus", str(per_node), "--resources",
                    json.dumps({f"fake_node_{n}": 1}), "--disable-usage-stats"], env)
    return address


def stop_nodes(temp: Path) -> None:
    import psutil

    procs = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if any(str(temp) in a for a in proc.info["cmdline"] or []):
                procs += [proc, *proc.children(recursive=True)]
        except psutil.Error:
            continue
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


def one_run(address: str, jobs_n: int, actors: int, sleep_s: float, files: dict[str, bytes],
            template, scratch: Path) -> dict:
    import ray

    from kgb.placement.ray_host import RayPlacement
    from kgb.runner.schedule import run_all
    from kgb.sandbox.base import Limits, create_sandbox

    placement = RayPlacement(address, "cpu", jobs=actors)
    out = scratch / f"run-{jobs_n}"
    out.mkdir()
    jobs = [replace(template, task=replace(template.task, id=f"fake.job_{i:05d}"), kernel=None)
            for i in range(jobs_n)]
    from kgb.runner.execute import JobContext

    sandbox = create_sandbox("process")
    empty = scratch / f"submission-{jobs_n}"  # the fake jobs have no kernel to ship
    empty.mkdir()
    ctx = JobContext(secrets.token_hex(4), out, sandbox, Limits(), empty,
                     None)  # type: ignore[arg-type] # no judge runs on the driver
    try:
        placement.open(ctx, (), actor_class=SleepingSlot)
        files_ref = ray.put(files)
        ray.get([a.handle.load.remote(files_ref, sleep_s) for a in placement._actors])
        cpu0, wall0 = time.process_time(), time.monotonic()
        outcome = run_all(jobs, placement.slots, ctx, _Quiet(), reuse=lambda job: None,
                          placement=placement)
        cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    finally:
        placement.close()
        shutil.rmtree(out, ignore_errors=True)
    assert outcome.failure is None and len(outcome.results) == jobs_n, outcome.failure
    ideal = -(-jobs_n // actors) * sleep_s
    return {"jobs": jobs_n, "actors": actors, "sleep_s": sleep_s,
            "driver_cpu_ms_per_job": round(1000 * cpu / jobs_n, 2),
            "wall_s": round(wall, 1), "ideal_wall_s": round(ideal, 1),
            "wall_overhead_ms_per_job": round(1000 * (wall - ideal) / jobs_n, 2),
            "jobs_per_s": round(jobs_n / wall, 1)}


def template_job(sample: Path):
    """A Job of the sample's task (its cases only feed the scheduler's ordering)."""
    from kgb.runner.plan import plan_jobs
    from kgb.submission import load_submission
    from kgb.tasks.index import index_suite

    plan = P.read(P.PlanRecord, sample / "plan.json", 64 << 20)
    index = index_suite(ROOT / "tasks")
    with tempfile.TemporaryDirectory() as tmp:
        submission = load_submission(ROOT / "examples" / "honest", Path(tmp) / "s")
        return plan_jobs({plan.task_id: index.load(plan.task_id)}, submission, "cpu", 1,
                         (plan.task_id,))[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--actors", type=int, default=32)
    parser.add_argument("--nodes", type=int, default=4)
    parser.add_argument("--sleep", type=float, default=0.5)
    parser.add_argument("--sample", type=Path, default=None)
    parser.add_argument("--evidence", action="store_true",
                        help="bring the sample's outputs back too (up to 16 MiB a job, as the "
                             "actor does); default: JSON and logs only, outputs left on nodes")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="kgb-bench-ray-"))
    temp = Path(tempfile.mkdtemp(prefix="kbr-", dir="/tmp"))  # short: Ray's socket paths
    token = temp / "token"
    token.write_text(secrets.token_hex(32))
    env = dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token),
               RAY_USAGE_STATS_ENABLED="0")
    os.environ.update({k: env[k] for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH",
                                           "RAY_USAGE_STATS_ENABLED")})
    try:
        sample = sample_job(args.sample, scratch)
        files, _ = pack(sample, 256 << 20, keep=lambda rel: rel != P.VERDICT_FILE and (
            args.evidence or not rel.endswith(".safetensors")))
        print(f"sample job folder: {sample} ({len(files)} files, "
              f"{sum(map(len, files.values())) / 1024:.0f} KiB)")
        template = template_job(sample)
        address = start_nodes(args.nodes, args.actors, temp, env)
        print(f"cluster: {args.nodes} nodes, {args.actors} actors, jobs sleep {args.sleep} s; "
              f"this machine: {os.cpu_count()} CPUs")
        for n in args.jobs:
            print(json.dumps(one_run(address, n, args.actors, args.sleep, files, template,
                                     scratch)), flush=True)
    finally:
        stop_nodes(temp)
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
