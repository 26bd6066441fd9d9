"""The trusted baseline-timing store: PyTorch eager and torch.compile timings of a task's timed
case, kept on the host across runs and reused until anything they depend on differs.

A baseline's time is a property of (GPU and its clock/power configuration, driver, torch,
CUDA, cuDNN, Triton, Python, kgb's timing loop, the task's files, the case's shape, dtype and
layout, eager or torch.compile, graph replay or not): all of it is the entry's key, kept in
full inside the file and compared exactly; the file's name is the key's digest.

Trust (threat 36, a poisoned baseline time buys a speedup): the host writes entries, after the
job, only from the trusted judge's own measurement (never one read from the store) and only
when the GPU was clean around it — no neighbour process, no throttling, the conditions read.
An entry is used only when the file and every folder from it up to the store's root are owned
by the running user, not group/world-writable and not links, and it parses with the bounded
reader into exactly this shape with this key; otherwise it is ignored, the report says why
(once per reason) and the baseline is measured afresh. The store is off where candidates are
not isolated from the host's files (`--sandbox process`), and wherever it would lie inside a
path the sandbox lets a candidate read. docs/timing.md, "The baseline cache"."""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import stat
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kgb
from kgb import protocol as P
from kgb.jsonfiles import Bounds, Refused, loads_json
from kgb.runner.run_memo import CLAIM_WAIT_S, Flights

STORE_VERSION = 1
ENTRY_MAX_BYTES = 64 << 10  # an entry holds at most a few hundred floats and its key
ENTRY_BOUNDS = Bounds(max_bytes=ENTRY_MAX_BYTES, max_depth=6)
MAX_TIMES = 1000
KINDS = ("eager", "compile")
# The code whose change changes what a baseline time means: the loop, the L2 reset, the judge's
# baseline function and how it calls it.
TIMING_SOURCES = ("bench/timer.py", "bench/l2.py", "judge/speed.py", "tasks/casegen.py")

Key = dict[str, Any]


def default_root() -> Path:
    """$XDG_CACHE_HOME/kgb/baselines, else ~/.cache/kgb/baselines."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).absolute() / "kgb" / "baselines"


def digest(key: Key) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def files_digest(folder: Path, skip: tuple[str, ...] = ("solution.py",)) -> str:
    """sha256 over a task folder's own files (reference, baseline, inputs.py, task.toml,
    anything they load beside them), by name: a changed task misses."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.iterdir() if p.is_file() and p.name not in skip):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def timing_method() -> str:
    root = Path(kgb.__file__).resolve().parent
    h = hashlib.sha256(f"store {STORE_VERSION} kgb {kgb.__version__}".encode())
    for name in TIMING_SOURCES:
        h.update(name.encode() + b"\0" + (root / name).read_bytes())
    return h.hexdigest()[:24]


def software_key() -> dict[str, Any]:
    """Versions a baseline's time depends on, read without importing torch (seconds on the
    first job's path): torch's own version file and the installed packages' metadata."""
    from kgb.report.environment import version
    from kgb.runner.host_gpus import cudnn_version, torch_cuda_version

    return {"torch": version("torch"), "cuda": torch_cuda_version(), "cudnn": cudnn_version(),
            "triton": version("triton"), "python": platform.python_version(),
            "timing": timing_method()}


def device_key(index: int) -> dict[str, Any] | str:
    """The GPU's identity and the clock/power configuration its timings depend on (NVML;
    `index` in PCI bus order, as kgb numbers GPUs), or why it cannot be read — without it
    nothing is cached."""
    try:
        import pynvml
    except ImportError:
        return "nvidia-ml-py is not installed"
    try:
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        key: dict[str, Any] = {
            "name": _text(pynvml.nvmlDeviceGetName(handle)),
            "uuid": _text(pynvml.nvmlDeviceGetUUID(handle)),
            "pci": _text(pynvml.nvmlDeviceGetPciInfo(handle).busId),
            "driver": _text(pynvml.nvmlSystemGetDriverVersion()),
        }
    except Exception as exc:  # NVML missing, no permission, a GPU that went away
        return f"NVML failed: {type(exc).__name__}: {exc}"
    optional = {  # not every GPU reports each: absent is part of the key too
        "app_sm_mhz": lambda: pynvml.nvmlDeviceGetApplicationsClock(handle,
                                                                     pynvml.NVML_CLOCK_SM),
        "app_mem_mhz": lambda: pynvml.nvmlDeviceGetApplicationsClock(handle,
                                                                      pynvml.NVML_CLOCK_MEM),
        "max_sm_mhz": lambda: pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM),
        "max_mem_mhz": lambda: pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM),
        "power_limit_mw": lambda: pynvml.nvmlDeviceGetEnforcedPowerLimit(handle),
        "ecc": lambda: pynvml.nvmlDeviceGetEccMode(handle)[0],
    }
    for name, read in optional.items():
        try:
            key[name] = int(read())
        except Exception:
            key[name] = None
    return key


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def case_key(run: Key, device: Key, task_id: str, task_files: str, case: P.CaseSpec,
             kind: str, graph: bool) -> Key:
    """The whole key of one baseline figure."""
    return {"store": STORE_VERSION, "software": run, "device": device, "task": task_id,
            "task_files": task_files, "case": case.id, "shape": case.shape,
            "dims": dict(sorted(case.dims.items())), "dtype": case.dtype, "mode": case.mode,
            "layout": case.layout, "kind": kind, "graph": graph}


def trust_problem(path: Path, root: Path) -> str | None:
    """Why `path` (inside `root`) is not to be trusted, or None: it and every folder from it
    up to `root` must be ours (the running user's), not writable by group or others, and
    not symbolic links."""
    uid = os.geteuid()
    current = path
    while True:
        try:
            st = os.lstat(current)
        except OSError as exc:
            return f"{current} cannot be inspected ({exc.strerror})"
        if stat.S_ISLNK(st.st_mode):
            return f"{current} is a symbolic link"
        if st.st_uid != uid:
            return f"{current} is owned by uid {st.st_uid}, not by this user ({uid})"
        if st.st_mode & 0o022:
            return f"{current} is writable by its group or by others"
        if current == root:
            return None
        if current.parent == current or root not in current.parents:
            return f"{path} is not inside the store {root}"
        current = current.parent


@dataclass(frozen=True)
class Entry:
    times_ms: tuple[float, ...]
    graph: bool
    measured_at: str  # UTC, ISO 8601


def parse_entry(raw: bytes, key: Key) -> Entry | str:
    """An entry's contents, or why they are refused (bounded reader, exact shape, same key)."""
    try:
        data = loads_json(raw, ENTRY_BOUNDS, "entry")
    except Refused as exc:
        return exc.reason
    if not isinstance(data, dict) or set(data) != {"key", "times_ms", "graph", "measured_at"}:
        return "not a baseline entry"
    if data["key"] != key:
        return "its key differs from the one asked for"
    times, graph, when = data["times_ms"], data["graph"], data["measured_at"]
    if not isinstance(times, list) or not 0 < len(times) <= MAX_TIMES or not all(
            type(t) in (int, float) and math.isfinite(t) and t > 0 for t in times):
        return "its times are not a list of positive numbers"
    if not isinstance(graph, bool) or not isinstance(when, str) or len(when) > 40:
        return "its fields have the wrong types"
    try:
        datetime.fromisoformat(when)
    except ValueError:
        return "its time of measurement is not a date"
    return Entry(tuple(float(t) for t in times), graph, when)


class BaselineStore:
    """Entries under `root`, two hex digits of the digest as the folder (thousands of
    entries stay listable)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: Key) -> Path:
        name = digest(key)
        return self.root / name[:2] / f"{name}.json"

    def get(self, key: Key) -> Entry | str | None:
        """The entry, None when there is none, or why the one there is not trusted."""
        path = self.path(key)
        if not os.path.lexists(path):
            return None
        problem = trust_problem(path, self.root)
        if problem is not None:
            return problem
        try:  # O_NOFOLLOW: a link swapped in after the check is refused, not followed
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            return f"{path} cannot be opened ({exc.strerror})"
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
                return f"{path} changed while it was checked"
            raw = _read_bounded(fd, ENTRY_MAX_BYTES + 1)
        except OSError as exc:
            return f"{path} cannot be read ({exc.strerror})"
        finally:
            os.close(fd)
        if len(raw) > ENTRY_MAX_BYTES:
            return f"{path} is over its {ENTRY_MAX_BYTES}-byte cap"
        entry = parse_entry(raw, key)
        return f"{path}: {entry}" if isinstance(entry, str) else entry

    def put(self, key: Key, entry: Entry) -> str | None:
        """Write atomically (several judges' hosts at once: a unique temporary file, then a
        rename); None, or why it was not written."""
        path = self.path(key)
        try:
            _private_dir(self.root)
            _private_dir(path.parent)
        except OSError as exc:
            return f"{path.parent} cannot be made ({exc.strerror})"
        problem = trust_problem(path.parent, self.root)
        if problem is not None:
            return problem
        text = json.dumps({"key": key, "times_ms": list(entry.times_ms), "graph": entry.graph,
                           "measured_at": entry.measured_at}, sort_keys=True)
        fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            return f"{path} cannot be written ({exc.strerror})"
        return None


def _read_bounded(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, limit - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _private_dir(path: Path) -> None:
    if not path.is_dir():
        path.mkdir(mode=0o700, parents=True, exist_ok=True)


def visible_to_sandbox(root: Path, paths: tuple[Path, ...]) -> Path | None:
    """A path the sandbox shows the candidate that holds the store or lies inside it."""
    real = Path(os.path.realpath(root))
    for path in paths:
        shown = Path(os.path.realpath(path))
        if shown == real or shown in real.parents or real in shown.parents:
            return path
    return None


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


@dataclass
class BaselineCache:
    """One run's use of the store: the run-wide part of the key, what was found, what was
    written, and each reason an entry was ignored (said once in the report)."""

    store: BaselineStore
    software: Key
    devices: dict[int, Key | str]  # GPU index → its key, or why it has none
    hits: int = 0
    stored: int = 0
    notes: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def note(self, reason: str) -> None:
        with self._lock:
            if reason not in self.notes and len(self.notes) < 20:
                self.notes.append(reason)

    def keys(self, task_id: str, task_folder: Path, cases: tuple[P.CaseSpec, ...],
             timed: tuple[str, ...], graph: tuple[str, ...], baselines: str,
             device: str) -> dict[tuple[str, str], Key]:
        """(case, kind) → key for each baseline figure this job's judge would time."""
        device_key_ = self.devices.get(int(device.split(":")[1])) \
            if device.startswith("cuda:") else None
        if not isinstance(device_key_, dict):
            if isinstance(device_key_, str):
                self.note(f"the GPU's identity could not be read ({device_key_}): not cached")
            return {}
        kinds = KINDS if baselines == "all" else ("eager",) if baselines == "eager" else ()
        files = files_digest(task_folder)
        specs = {c.id: c for c in cases}
        return {(case, kind): case_key(self.software, device_key_, task_id, files, specs[case],
                                       kind, case in graph)
                for case in timed if case in specs for kind in kinds}

    def lookup(self, keys: dict[tuple[str, str], Key]) -> tuple[P.CachedBaseline, ...]:
        found = []
        for (case, kind), key in keys.items():
            entry = self.store.get(key)
            if isinstance(entry, str):
                self.note(f"ignored {entry}")
            elif entry is not None:
                found.append(P.CachedBaseline(case, kind, entry.times_ms, entry.graph,
                                              entry.measured_at))
        with self._lock:
            self.hits += len(found)
        return tuple(found)

    def lookup_or_claim(self, keys: dict[tuple[str, str], Key], claims: list[str],
                        flights: Flights, cancel: threading.Event,
                        wait_s: float = CLAIM_WAIT_S) -> tuple[P.CachedBaseline, ...]:
        """What the store has for `keys`; each missing figure is then this job's to measure
        (its digest appended to `claims`, released through `flights` once the job stored or
        ended) unless another job of the run is measuring it already: then this one waits
        for that one (at most `wait_s`) and looks again (kgb.runner.run_memo.Flights)."""
        deadline = time.monotonic() + wait_s
        while True:
            found = self.lookup(keys)
            have = {(c.case, c.kind) for c in found}
            missing = [digest(key) for ck, key in keys.items() if ck not in have]
            if flights.claim_or_wait(missing, claims, cancel, deadline):
                return found

    def commit(self, keys: dict[tuple[str, str], Key], judged: P.JudgeResult | None,
               conditions: P.Conditions | None) -> int:
        """Store the figures the judge measured itself in this job, when the GPU was clean
        around them; how many were written."""
        if not keys or judged is None:
            return 0
        reason = unclean(conditions)
        if reason is not None:
            self.note(f"not stored: {reason}")
            return 0
        written = 0
        when = now_utc()
        for base in judged.baselines:
            if base.error is not None:
                continue
            for kind, times, cached in (("eager", base.eager_ms, base.eager_cached_at),
                                        ("compile", base.compile_ms, base.compile_cached_at)):
                key = keys.get((base.case, kind))
                if key is None or cached is not None or not times or \
                        (kind == "compile" and base.compile_error is not None):
                    continue
                # a compile figure is kept only in the mode asked for; eager's says its own
                graph = bool(key["graph"]) if kind == "compile" else base.graph
                problem = self.store.put(key, Entry(tuple(times), graph, when))
                if problem is None:
                    written += 1
                else:
                    self.note(f"not stored: {problem}")
        with self._lock:
            self.stored += written
        return written

    def describe(self) -> dict[str, Any]:
        return {"dir": str(self.store.root), "hits": self.hits, "stored": self.stored,
                "notes": list(self.notes)}


def unclean(conditions: P.Conditions | None) -> str | None:
    """Why the GPU's conditions around a job make its baseline times unfit to keep, or None."""
    if conditions is None:
        return "the GPU's conditions were not read"
    if conditions.error is not None:
        return f"the GPU's conditions could not be read ({conditions.error})"
    if conditions.throttled:
        return f"the GPU throttled ({', '.join(conditions.throttle_reasons)})"
    if conditions.neighbours or conditions.unattributed:
        return "other processes used the GPU"
    if conditions.neighbours_error is not None:
        return f"the GPU's other processes could not be watched ({conditions.neighbours_error})"
    return None


def open_cache(option: str | None, slots: tuple[str, ...], isolation: str, timing: bool,
               baselines: str, shown: tuple[Path, ...]) -> tuple[BaselineCache | None, str]:
    """The run's cache, or None and why not (for the report). `option`: --baseline-cache
    (None: the default folder; "off"; a folder); `shown`: paths the sandbox lets a candidate
    read."""
    if option == "off":
        return None, "off (--baseline-cache off)"
    if slots[0] == "cpu" or not timing or baselines == "none":
        return None, "off (nothing is timed)"
    if isolation == "none":
        return None, ("off: the process sandbox does not keep candidates away from the "
                      "host's files, so a candidate could plant a baseline time")
    root = Path(option).absolute() if option else default_root()
    inside = visible_to_sandbox(root, shown)
    if inside is not None:
        return None, f"off: {root} is visible inside the sandbox (through {inside})"
    try:
        _private_dir(root)
    except OSError as exc:
        return None, f"off: {root} cannot be made ({exc.strerror})"
    problem = trust_problem(root, root)
    if problem is not None:
        return None, f"off: {problem}"
    devices = {int(s.split(":")[1]): device_key(int(s.split(":")[1])) for s in set(slots)}
    return BaselineCache(BaselineStore(root), software_key(), devices), str(root)
