"""`kgb sandbox check`: a conformance self-test any backend runs (after inspect_ai's
self_check). Each property is proven by a hostile probe (probes.py) run inside the backend, and
judged here, on the trusted side, from facts the probe cannot forge: listeners that count
connections, host files and processes, the sandbox's own ExecResult.

A property ends `pass`, `fail` or `skip` (cannot be tested here, e.g. no GPU). A property the
backend does not claim (`claimed=False`: the process backend has no isolation; a Limits field
missing from `enforced`) is still probed and reported as it is — a leak is a `fail`, never a
pass. The check holds only if nothing fails.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import psutil

from kgb.sandbox import gpu as gpus
from kgb.sandbox import probes
from kgb.sandbox.base import ExecResult, GiB, Limits, MiB, Sandbox, SandboxRequest

KGB_ROOT = Path(__file__).resolve().parents[1]
PROBES = Path(probes.__file__).resolve()
MARKER_VAR = "KGB_SELFCHECK_MARKER"
OUTSIDE = (("1.1.1.1", 443), ("8.8.8.8", 53))

# Small limits so each probe is quick and bounded even on a backend that enforces nothing.
CHECK_LIMITS = Limits(wall_time_s=60.0, memory_bytes=2 * GiB, max_processes=32,
                      output_bytes=32 * MiB, tmp_bytes=32 * MiB, cpus=1.0, log_bytes=64 * 1024)
# CUDA and torch start threads per CPU core, and RLIMIT_NPROC counts threads: under the fork
# probes' 32 a GPU probe failed on a 32-core host ("cudaGetDeviceCount ... Error 304"), so the
# GPU probes get what a real job gets.
GPU_CHECK_LIMITS = replace(CHECK_LIMITS, max_processes=Limits().max_processes)


@dataclass(frozen=True)
class Outcome:
    name: str
    status: str  # pass | fail | skip
    detail: str
    claimed: bool  # the backend says it enforces this


@dataclass(frozen=True)
class Property:
    name: str
    needs: str  # "isolation" or the Limits field that must be in Sandbox.enforced
    summary: str
    check: Callable[[Harness], tuple[str, str]]


class Harness:
    """Runs probes in one backend; owns the temporary folders and the secrets."""

    def __init__(self, sandbox: Sandbox, device: str, stdout_bytes: int) -> None:
        self.sandbox, self.device, self.stdout_bytes = sandbox, device, stdout_bytes
        self.base = Path(tempfile.mkdtemp(prefix="kgb-selfcheck-"))
        self.base.chmod(0o755)  # the worker runs as another uid: it must reach the job folder
        self.job = self.base / "job"
        self.job.mkdir(mode=0o755)
        self.token = secrets.token_hex(8)
        self.marker = f"kgb-selfcheck-{self.token}"
        self.home_secret = Path.home() / "kgb-selfcheck-secret"
        self.sibling_secret = self.base / "secret.txt"
        self.runs = 0
        self.cache: dict = {}

    def __enter__(self) -> Harness:
        secret = f"SECRET-{self.token}\n"
        for path in (self.home_secret, self.sibling_secret):
            path.write_text(secret)
            path.chmod(0o644)  # readable by anyone: only the sandbox's mounts may hide it
        os.environ[MARKER_VAR] = self.marker  # a backend that inherits our env leaks it
        return self

    def __exit__(self, *exc) -> None:
        os.environ.pop(MARKER_VAR, None)
        self.home_secret.unlink(missing_ok=True)
        shutil.rmtree(self.base, ignore_errors=True)

    def ro_paths(self) -> tuple[Path, ...]:
        import site

        paths = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), KGB_ROOT,
                 self.job}
        for p in site.getsitepackages():
            paths.add(Path(p).resolve())
        return tuple(sorted(paths))

    def env(self, tmp: Path) -> dict[str, str]:
        env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
               "HOME": str(tmp), "TMPDIR": str(tmp), "LANG": "C.UTF-8",
               "KGB_PROBE": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        if self.device.startswith("cuda"):
            env["OMP_NUM_THREADS"] = "1"  # as a job's worker: one CPU's worth of threads
            env["CUDA_VISIBLE_DEVICES"] = self.device.split(":")[1] if ":" in self.device else "0"
            for key in ("LD_LIBRARY_PATH", "CUDA_HOME", "TRITON_PTXAS_PATH"):
                if key in os.environ:
                    env[key] = os.environ[key]
        return env

    def run(self, probe: str, args: dict, limits: Limits = CHECK_LIMITS, site: bool = False,
            device: str = "cpu") -> tuple[ExecResult, dict | None, Path]:
        """Run one probe in a fresh output and scratch folder; (result, probe facts, out)."""
        self.runs += 1
        out = self.job / f"out{self.runs}"
        out.mkdir(mode=0o755)
        tmp = Path(tempfile.mkdtemp(prefix=f"kgb-selfcheck-tmp-{self.token}-"))
        flags = ("-I",) if site else ("-I", "-S")
        request = SandboxRequest(
            argv=(sys.executable, *flags, str(PROBES), probe, json.dumps(args)), out_dir=out,
            ro_paths=self.ro_paths(), env=tuple(sorted(self.env(tmp).items())), tmp_dir=tmp,
            device=device, label=f"selfcheck-{self.token}/{probe}", cwd=out)
        try:
            result = self.sandbox.run(request, limits)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return result, probes.parse(result.stdout), out


NO_REPORT = "the probe did not report"  # a failure for want of evidence, not of the property


def _no_facts(result: ExecResult) -> tuple[str, str]:
    tail = (result.stderr.strip().splitlines() or ["no output"])[-1][:200]
    return "fail", f"{NO_REPORT} (rc={result.returncode}): {tail}"


# ---------------------------------------------------------------------------- properties

class _Listener:
    """A TCP listener on the host that counts the connections it accepts."""

    def __init__(self, host: str) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
                self.accepted += 1
                conn.close()
            except OSError:
                continue

    def close(self) -> None:
        self.stop = True
        self.thread.join(2)
        self.sock.close()


def _host_addresses() -> list[str]:
    found = []
    for addrs in psutil.net_if_addrs().values():
        for a in addrs:
            if a.family == socket.AF_INET and not a.address.startswith("127."):
                found.append(a.address)
    return sorted(set(found))


def _host_reaches_outside() -> bool:
    for target in OUTSIDE:
        try:
            with socket.create_connection(target, timeout=2):
                return True
        except OSError:
            pass
    return False


def check_network(h: Harness) -> tuple[str, str]:
    loop, anyaddr = _Listener("127.0.0.1"), _Listener("0.0.0.0")
    addresses = _host_addresses()
    targets = [("127.0.0.1", loop.port)] + [(a, anyaddr.port) for a in addresses] + \
        [list(t) for t in OUTSIDE]
    try:
        result, facts, _ = h.run("network", {"targets": targets})
        time.sleep(0.3)
        accepted = loop.accepted + anyaddr.accepted
    finally:
        loop.close()
        anyaddr.close()
    if facts is None:
        return _no_facts(result)
    outside = "the host itself reaches outside" if _host_reaches_outside() else \
        "the host itself has no outside route here"
    if facts["connected"] or accepted or facts["dns"]:
        return "fail", (f"connected to {', '.join(facts['connected']) or '-'}; host listeners "
                        f"accepted {accepted}; DNS resolves: {facts['dns']}")
    return "pass", (f"host loopback, host addresses ({', '.join(addresses) or 'none'}) and "
                    f"outside ({outside}) all unreachable; interfaces: "
                    f"{', '.join(facts['interfaces']) or 'none'}")


def check_root_readonly(h: Harness) -> tuple[str, str]:
    folders = ["/", "/usr", "/etc", str(Path(sys.prefix).resolve()), str(KGB_ROOT), str(h.job),
               str(Path.home())]
    result, facts, _ = h.run("write_root", {"folders": folders})
    if facts is None:
        return _no_facts(result)
    if facts["written"]:
        return "fail", f"could create files in {', '.join(facts['written'])}"
    return "pass", f"no file could be created in {', '.join(folders)}"


def check_host_files(h: Harness) -> tuple[str, str]:
    paths = [str(h.home_secret), str(h.sibling_secret), "/etc/shadow"]
    result, facts, _ = h.run("read_files", {"paths": paths, "home": str(Path.home())})
    if facts is None:
        return _no_facts(result)
    if facts["read"]:
        return "fail", f"read {', '.join(facts['read'])}"
    listing = facts["home_listing"]
    return "pass", (f"{h.home_secret}, a file beside the job folder and /etc/shadow unreadable; "
                    f"{Path.home()} shows {listing if listing is not None else 'nothing'}")


_DECOY = """import os, time
parent, end = os.getppid(), time.monotonic() + 120
while os.getppid() == parent and time.monotonic() < end:
    time.sleep(0.2)"""


def check_host_processes(h: Harness) -> tuple[str, str]:
    # The decoy holds none of kgb's pipes and ends when kgb does: a Ctrl-C landing inside
    # Popen, before `try`, would otherwise leave it asleep with the caller's stderr open
    # (a test's communicate() then waited the whole 120 s).
    decoy = subprocess.Popen([sys.executable, "-c", _DECOY, h.marker],
                             env={"KGB_DECOY": h.marker}, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        result, facts, _ = h.run("processes", {"reversed_marker": h.marker[::-1]})
    finally:
        decoy.kill()
        decoy.wait()
    if facts is None:
        return _no_facts(result)
    if facts["found"]:
        return "fail", (f"sees host processes: a decoy's command line/environment in "
                        f"/proc/{', /proc/'.join(facts['found'][:3])}")
    return "pass", f"no host process visible ({facts['visible']} processes in its /proc)"


def check_unprivileged(h: Harness) -> tuple[str, str]:
    result, facts, _ = h.run("privileges", {})
    if facts is None:
        return _no_facts(result)
    problems = []
    if int(facts["cap_eff"] or "0", 16):
        problems.append(f"capabilities {facts['cap_eff']}")
    if facts["no_new_privs"] != "1":
        problems.append("no_new_privs not set")
    if facts["outside_uid"] == 0:
        problems.append("runs as host root")
    if facts["sysctl_writable"]:
        problems.append("/proc/sys/kernel/core_pattern opens for writing")
    if facts.get("userns"):
        problems.append("can create a user namespace")
    if problems:
        return "fail", "; ".join(problems)
    return "pass", (f"uid {facts['euid']} (host uid {facts['outside_uid']}), no capabilities, "
                    "no_new_privs, kernel tunables read-only, no user namespaces")


_ALLOWED_DEVICES = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
                    "/dev/tty", "/dev/ptmx", "/dev/pts/ptmx"}


def check_devices(h: Harness) -> tuple[str, str]:
    result, facts, _ = h.run("privileges", {})
    if facts is None:
        return _no_facts(result)
    extra = [d for d in facts["devices"] if d[2:] not in _ALLOWED_DEVICES]
    if extra:
        return "fail", f"host devices visible: {', '.join(sorted(extra)[:6])}" + \
            (f" and {len(extra) - 6} more" if len(extra) > 6 else "")
    return "pass", f"only {', '.join(sorted(d[2:] for d in facts['devices']))}"


def check_env(h: Harness) -> tuple[str, str]:
    tmp_probe_env_keys = set(h.env(Path("/x")))
    result, facts, _ = h.run("environment", {})
    if facts is None:
        return _no_facts(result)
    env = facts["env"]
    leaked = sorted(set(env) - tmp_probe_env_keys)
    if MARKER_VAR in env or h.marker in json.dumps(env) or leaked:
        more = f" and {len(leaked) - 8} more" if len(leaked) > 8 else ""
        return "fail", f"variables not given to the worker: {', '.join(leaked[:8])}{more}"
    return "pass", f"exactly the {len(env)} variables given; {MARKER_VAR} of the parent absent"


def _survivors(marker: str, wait_s: float = 3.0) -> list[int]:
    """Processes carrying marker in their command line, after up to wait_s for them to go.
    Whatever is left is killed here (the check must not leak processes either)."""
    end = time.monotonic() + wait_s
    while True:
        found = []
        for proc in psutil.process_iter(["cmdline", "status"]):
            try:
                if marker in (proc.info["cmdline"] or []) and \
                        proc.info["status"] != psutil.STATUS_ZOMBIE:
                    found.append(proc)
            except psutil.Error:
                pass
        if not found or time.monotonic() > end:
            break
        time.sleep(0.1)
    for proc in found:
        try:
            proc.kill()
        except psutil.Error:
            pass
    return [p.pid for p in found]


def check_timeout(h: Harness) -> tuple[str, str]:
    marker = f"{h.marker}-timeout"
    limits = replace(CHECK_LIMITS, wall_time_s=3.0)
    result, _, _ = h.run("escape", {"marker": marker, "mode": "hang"}, limits)
    left = _survivors(marker)
    if not result.timed_out:
        return "fail", ("a job sleeping forever was not reported as timed out "
                        f"(rc={result.returncode})")
    if left:
        return "fail", f"a double-forked child survived the timeout (pids {left})"
    if result.wall_s > limits.wall_time_s + 15:
        return "fail", f"the timeout of {limits.wall_time_s}s fired after {result.wall_s:.1f}s"
    return "pass", (f"killed after {result.wall_s:.1f}s (limit {limits.wall_time_s:.0f}s) with "
                    "its double-forked, new-session child")


def check_exit(h: Harness) -> tuple[str, str]:
    marker = f"{h.marker}-exit"
    result, facts, _ = h.run("escape", {"marker": marker, "mode": "exit"})
    left = _survivors(marker)
    if facts is None:
        return _no_facts(result)
    if left:
        return "fail", f"a double-forked child outlived the job (pids {left})"
    return "pass", "a double-forked, new-session child died with the job"


def check_fork(h: Harness) -> tuple[str, str]:
    cap = CHECK_LIMITS.max_processes
    result, facts, _ = h.run("fork", {"attempts": 3 * cap})
    if facts is None:
        return _no_facts(result)
    if facts["created"] > cap:
        return "fail", (f"created {facts['created']} processes with a limit of {cap} "
                        "(a fork bomb would run until the wall time)")
    return "pass", f"fork failed after {facts['created']} processes (limit {cap}): {facts['error']}"


def check_memory(h: Harness) -> tuple[str, str]:
    limits = replace(CHECK_LIMITS, memory_bytes=512 * MiB)
    result, facts, _ = h.run("memory", {"limit": 2 * limits.memory_bytes}, limits)
    reached = facts["allocated"] if facts else max(
        [int(line.split()[1]) for line in result.stdout.splitlines()
         if line.startswith("allocated ")] or [0])
    if reached >= 2 * limits.memory_bytes:
        return "fail", (f"allocated {reached >> 20} MiB with a limit of "
                        f"{limits.memory_bytes >> 20} MiB")
    how = facts["error"] if facts else f"killed (rc={result.returncode})"
    return "pass", (f"stopped at {reached >> 20} MiB of {2 * limits.memory_bytes >> 20} MiB "
                    f"tried (limit {limits.memory_bytes >> 20} MiB): {how}")


def _fill(h: Harness, where: str, cap: int, cleanup: bool) -> tuple[bool, str]:
    result, facts, _ = h.run("fill", {"folder": where, "limit": 2 * cap, "cleanup": cleanup})
    if facts is None:
        return False, _no_facts(result)[1]
    ok = facts["written"] <= cap + MiB
    return ok, f"{facts['written'] >> 20} MiB written ({facts['error'] or 'no error'})"


def check_tmp(h: Harness) -> tuple[str, str]:
    cap = CHECK_LIMITS.tmp_bytes
    ok_tmpdir, detail_tmpdir = _fill(h, "$TMPDIR", cap, cleanup=False)
    ok_tmp, detail_tmp = _fill(h, "/tmp", cap, cleanup=True)
    detail = f"TMPDIR: {detail_tmpdir}; /tmp: {detail_tmp} (cap {cap >> 20} MiB)"
    return ("pass" if ok_tmpdir and ok_tmp else "fail"), detail


def check_output(h: Harness) -> tuple[str, str]:
    cap = CHECK_LIMITS.output_bytes
    result, facts, out = h.run("fill", {"folder": "$OUT", "limit": 2 * cap, "cleanup": False})
    on_host = sum(p.stat().st_size for p in out.rglob("*") if p.is_file() and not p.is_symlink())
    if facts is None:
        return ("pass" if on_host <= cap else "fail"), \
            f"probe stopped (rc={result.returncode}); {on_host >> 20} MiB reached the host"
    ok = facts["written"] <= cap + MiB and on_host <= cap
    return ("pass" if ok else "fail"), (
        f"{facts['written'] >> 20} MiB written ({facts['error'] or 'no error'}), "
        f"{on_host >> 20} MiB reached the host folder (cap {cap >> 20} MiB)")


def check_stdout(h: Harness) -> tuple[str, str]:
    limits = replace(CHECK_LIMITS, wall_time_s=300.0)
    result, _, out = h.run("flood", {"total": h.stdout_bytes, "out_dir": "$OUT"}, limits)
    try:
        flood = json.loads((out / "flood.json").read_text())
    except (OSError, ValueError):
        flood = {"written": None, "seconds": None}
    size = h.stdout_bytes / GiB
    kept = len(result.stdout.encode())
    if kept > limits.log_bytes:
        return "fail", f"kept {kept} bytes of stdout with a cap of {limits.log_bytes}"
    if h.stdout_bytes > limits.log_bytes and not result.truncated:
        return "fail", "the log was cut but not marked truncated"
    if result.wall_s > limits.wall_time_s + 15:
        return "fail", f"took {result.wall_s:.0f}s"
    rate = f", {flood['written'] / flood['seconds'] / GiB:.1f} GiB/s" \
        if flood["written"] and flood["seconds"] else ""
    return "pass", (f"{size:g} GiB to stdout: kept {kept >> 10} KiB, marked truncated, "
                    f"{result.wall_s:.1f}s{rate}" + (" (timed out)" if result.timed_out else ""))


def _gpu_facts(h: Harness) -> tuple[str, str] | dict:
    """The gpu probe's facts (run once for both GPU properties), or a (status, detail)."""
    if not h.device.startswith("cuda"):
        return "skip", "no GPU requested (use --device cuda:N on a GPU host)"
    if not gpus.list_gpus() and not gpus.all_nodes():
        return "skip", "no NVIDIA GPU on this host"
    if "gpu" not in h.cache:
        result, facts, _ = h.run("gpu", {}, GPU_CHECK_LIMITS, site=True, device=h.device)
        h.cache["gpu"] = facts if facts is not None else _no_facts(result)
    return h.cache["gpu"]


def check_gpu_usable(h: Harness) -> tuple[str, str]:
    facts = _gpu_facts(h)
    if isinstance(facts, tuple):
        return facts
    if facts["triton"] != "ok":
        return "fail", f"a Triton kernel could not run in the sandbox: {facts['triton']}"
    return "pass", "a Triton kernel compiled and ran on the assigned GPU"


def check_gpu(h: Harness) -> tuple[str, str]:
    facts = _gpu_facts(h)
    if isinstance(facts, tuple):
        return facts
    chosen = gpus.resolve(h.device)
    allowed = {os.path.basename(n) for n in gpus.CONTROL_NODES}
    if chosen is not None and chosen.node:
        allowed.add(os.path.basename(chosen.node))
    problems = []
    if facts["count"] != 1:
        problems.append(f"torch sees {facts['count']} GPUs")
    if chosen is not None and chosen.uuid and facts["uuids"] and \
            chosen.uuid.removeprefix("GPU-") not in facts["uuids"][0]:
        problems.append(f"the visible GPU is {facts['uuids'][0]}, not {chosen.uuid}")
    if facts["count_without_env"] != 1:
        problems.append(f"with CUDA_VISIBLE_DEVICES removed it sees {facts['count_without_env']}")
    extra = sorted(set(facts["nodes"]) - allowed)
    if extra:
        problems.append(f"other GPU nodes present: {', '.join(extra)}")
    if problems:
        return "fail", "; ".join(problems)
    return "pass", (f"one GPU ({chosen.uuid if chosen else h.device}), also when the worker drops "
                    f"CUDA_VISIBLE_DEVICES; nodes: {', '.join(facts['nodes'])}")


PROPERTIES = (
    Property("network", "isolation", "no network: host loopback, host addresses, outside",
             check_network),
    Property("root_readonly", "isolation", "root filesystem and read-only mounts unwritable",
             check_root_readonly),
    Property("host_files_hidden", "isolation", "host files outside the mounts unreadable",
             check_host_files),
    Property("host_processes_hidden", "isolation", "host processes invisible",
             check_host_processes),
    Property("unprivileged", "isolation", "no capabilities, no root, no_new_privs",
             check_unprivileged),
    Property("devices_minimal", "isolation", "no host devices", check_devices),
    Property("env_scrubbed", "always", "only the given environment", check_env),
    Property("timeout_kills_tree", "wall_time_s", "timeout kills the whole tree", check_timeout),
    Property("exit_kills_leftovers", "wall_time_s", "nothing outlives the job", check_exit),
    Property("fork_bomb_contained", "max_processes", "process limit holds", check_fork),
    Property("memory_capped", "memory_bytes", "memory limit holds", check_memory),
    Property("tmp_capped", "tmp_bytes", "scratch and /tmp stop at their cap", check_tmp),
    Property("output_capped", "output_bytes", "output folder stops at its cap", check_output),
    Property("stdout_capped", "log_bytes", "a huge stdout is capped in bounded time",
             check_stdout),
    Property("gpu_isolated", "isolation", "only the assigned GPU is visible", check_gpu),
    Property("gpu_usable", "always", "a Triton kernel compiles and runs on the GPU",
             check_gpu_usable),
)


def claims(sandbox: Sandbox, prop: Property) -> bool:
    if prop.needs == "always":
        return True
    if prop.needs == "isolation":
        return sandbox.isolation != "none"
    return prop.needs in sandbox.enforced


def run_selfcheck(sandbox: Sandbox, device: str = "cpu", stdout_bytes: int = 10 * GiB,
                  only: tuple[str, ...] | None = None,
                  progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    outcomes = []
    with Harness(sandbox, device, stdout_bytes) as harness:
        for prop in PROPERTIES:
            if only and prop.name not in only:
                continue
            try:
                status, detail = prop.check(harness)
            except Exception as exc:
                status, detail = "fail", f"the check itself failed: {type(exc).__name__}: {exc}"
            outcome = Outcome(prop.name, status, detail, claims(sandbox, prop))
            outcomes.append(outcome)
            if progress:
                progress(outcome)
    return outcomes


def format_line(o: Outcome) -> str:
    note = "" if o.claimed or o.status != "fail" else "  [not claimed by this backend]"
    return f"{o.status.upper():4}  {o.name:22} {o.detail}{note}"


def summary(sandbox: Sandbox, outcomes: list[Outcome]) -> str:
    counts = {s: sum(o.status == s for o in outcomes) for s in ("pass", "fail", "skip")}
    verdict = "all properties hold" if not counts["fail"] else "NOT CONTAINED"
    return (f"{sandbox.name} (isolation: {sandbox.isolation}): {counts['pass']} pass, "
            f"{counts['fail']} fail, {counts['skip']} skipped — {verdict}")


def as_json(sandbox: Sandbox, outcomes: list[Outcome]) -> dict:
    return {**sandbox.describe(), "ok": not any(o.status == "fail" for o in outcomes),
            "properties": [asdict(o) for o in outcomes]}


def main(backend: str, device: str, stdout_gb: float, only: str | None, json_out: bool,
         echo: Callable[[str], None]) -> int:
    """`kgb sandbox check`: 0 if every property holds, 1 if one fails; an unavailable backend
    raises SandboxUnavailable (exit 3 through the CLI)."""
    from kgb.errors import ExitCode
    from kgb.sandbox.base import create_sandbox

    sandbox = create_sandbox(backend)
    names = tuple(n.strip() for n in only.split(",") if n.strip()) if only else None
    unknown = set(names or ()) - {p.name for p in PROPERTIES}
    if unknown:
        from kgb.errors import BadInput

        raise BadInput(f"unknown property {', '.join(sorted(unknown))}; choose from "
                       f"{', '.join(p.name for p in PROPERTIES)}")
    try:
        outcomes = run_selfcheck(sandbox, device=device, stdout_bytes=int(stdout_gb * GiB),
                                 only=names,
                                 progress=None if json_out else lambda o: echo(format_line(o)))
    finally:
        sandbox.close()
    echo(json.dumps(as_json(sandbox, outcomes), indent=1) if json_out
         else summary(sandbox, outcomes))
    return ExitCode.FINDINGS if any(o.status == "fail" for o in outcomes) else ExitCode.OK
