"""The `docker` backend (docker SDK): one fresh container per job.

The container (see docs/sandboxes.md for the full policy): `network none`, read-only root,
`cap-drop ALL`, `no-new-privileges`, pids/memory/CPU limits, docker's init, no logs kept by the
engine, labelled `kgb.run=<run id>`; the request's read-only paths (and, in the `host` image
mode, the host's /usr and Python runtime) bound read-only at their own paths; /tmp and the
scratch folder as tmpfs of `tmp_bytes`; the output folder as a tmpfs of `output_bytes` owned by
uid 65534 — a hard cap kept by the kernel (and charged to the container's memory limit).

The container's own process is an idle `sleep` (uid 0, no capabilities). The worker is an
`exec` as uid 65534 under kgb's supervisor (`_supervisor.py`): in-container timeout, log caps,
every uid-65534 process killed when it ends. Then the host copies only regular files and
folders, at most `output_bytes`, into the host output folder: straight from the output tmpfs
through /proc/PID/root of the idle process where it may (root beside a local engine), else
through a second exec (`tar`, uid 65534) that streams the tmpfs back to be unpacked. With
`hand_over` (kgb/sandbox/handover.py) the supervisor sweeps the tmpfs in place instead, the host
copies out only the small files and the judge reads the rest through /proc/PID/root; the
container then stays until the runner releases it after judging. The host
keeps its own deadline; `finally` always stops, kills and removes the container. Leftovers (a
killed kgb) are found by label: `kgb sandbox clean`.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgb.sandbox import _supervisor, gpu, images
from kgb.sandbox.base import (
    ExecResult,
    HeldOutputs,
    Limits,
    MiB,
    Sandbox,
    SandboxRequest,
    SandboxUnavailable,
    Started,
    compile_budget_s,
    not_started,
    register_backend,
    worker_seconds,
)
from kgb.sandbox.subproc import HOST_GRACE_S, REPORT_ROOM, LiveSplitter, LockLines

WORKER_USER = "65534:65534"
LABEL_RUN, LABEL_JOB, LABEL_OWNER = "kgb.run", "kgb.label", "kgb.owner"
SHM_BYTES = 64 * MiB
HELD_CONTAINER_S = 7 * 24 * 3600
ETC_MOUNTS = ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime")


def _client(timeout: int = 60):
    import docker

    return docker.from_env(timeout=timeout)


def run_id_of(label: str) -> str:
    """`<run id>/<job>` → the run id (the whole label when it has no job part)."""
    return label.split("/", 1)[0] or "unlabelled"


@register_backend
class DockerSandbox(Sandbox):
    name = "docker"
    isolation = "container"
    enforced = ("wall_time_s", "memory_bytes", "max_processes", "output_bytes", "tmp_bytes",
                "cpus", "log_bytes")
    # The output tmpfs is RAM the container's memory cgroup charges: its cap is fitted to the
    # machine as bwrap's is, and the container's limit has room for it (container_memory).
    output_in_ram = True

    def __init__(self, image: str | None = None) -> None:
        self.image_ref = image or os.environ.get("KGB_DOCKER_IMAGE") or "host"
        self._docker: Any = None
        self._image: tuple[str, str, str] | None = None  # (reference, id, python)
        self._gpu_runtime: bool | None = None  # the engine has NVIDIA's container runtime
        # Containers started and not yet torn down: close() removes what a job thread did not
        # get to (a stopped run exits without waiting for its jobs' teardown; seen: SIGTERM
        # left a hanging job's container running once the judges' exit stopped delaying it).
        self._live: set[Any] = set()
        self._live_lock = threading.Lock()

    @classmethod
    def unavailable_reason(cls) -> str | None:
        try:
            import docker  # noqa: F401
        except ImportError:
            return "the docker SDK is not installed (pip install 'kgb[docker]')"
        try:
            client = _client(timeout=10)
            try:
                client.ping()
            finally:
                client.close()
        except Exception as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return f"no Docker engine answers ({first[:160]}); start dockerd or set DOCKER_HOST"
        return None

    # ------------------------------------------------------------------ lifecycle helpers

    def _engine(self):
        if self._docker is None:
            try:
                self._docker = _client()
                self._docker.ping()
            except Exception as exc:
                self._docker = None
                raise SandboxUnavailable(f"sandbox 'docker' is unavailable: {exc}") from exc
        return self._docker

    def image(self) -> tuple[str, str, str]:
        """(reference, content-addressed id, the worker's python), built/resolved once."""
        if self._image is None:
            import docker.errors

            client = self._engine()
            try:
                if self.image_ref == "host":
                    tag, image_id = images.ensure_host_image(client)
                    self._image = (tag, image_id, sys.executable)
                else:
                    img = client.images.get(self.image_ref)
                    python = (img.labels or {}).get(images.PYTHON_LABEL, "/usr/local/bin/python3")
                    self._image = (self.image_ref, img.id, python)
            except docker.errors.ImageNotFound as exc:
                raise SandboxUnavailable(
                    f"docker image {self.image_ref!r} not found: build it with `docker build -f "
                    "images/Dockerfile.cpu -t kgb-runner:cpu .` or use the offline `host` "
                    "image (unset KGB_DOCKER_IMAGE)") from exc
            except docker.errors.DockerException as exc:
                raise SandboxUnavailable(f"docker image {self.image_ref!r}: {exc}") from exc
        return self._image

    def describe(self) -> dict:
        info = super().describe()
        if self._image is not None:
            info["image"], info["image_id"] = self._image[0], self._image[1]
        return info

    def close(self) -> None:
        with self._live_lock:
            left, self._live = list(self._live), set()
        for container in left:
            _teardown(container)
        if self._docker is not None:
            self._docker.close()
            self._docker = None

    def _remove(self, container) -> None:
        _teardown(container)
        with self._live_lock:
            self._live.discard(container)

    # ------------------------------------------------------------------------------ run

    def run(self, request: SandboxRequest, limits: Limits) -> ExecResult:
        return self._start(request, limits, hold=False).go()

    def start(self, request: SandboxRequest, limits: Limits) -> Started:
        """Create and start the container and exec the supervisor in it, held (with a
        channel) until `go`: the worker's imports overlap the slot's previous job."""
        return self._start(request, limits, hold=request.channel)

    def _start(self, request: SandboxRequest, limits: Limits, hold: bool) -> Started:
        import docker.errors

        client = self._engine()
        _, image_id, python = self.image()
        notes: list[str] = []
        env = dict(request.env)
        argv = list(request.argv)
        if self.image_ref != "host" and _is_host_python(argv[0]):
            argv[0] = python  # a runner image brings its own Python (and torch, triton)
        try:
            container = client.containers.create(**self._spec(request, limits, image_id, env,
                                                              notes))
        except docker.errors.DockerException as exc:
            raise SandboxUnavailable(f"docker could not create the job's container: {exc}") \
                from exc
        with self._live_lock:
            self._live.add(container)
        try:
            try:
                container.start()
            except docker.errors.DockerException as exc:
                raise SandboxUnavailable(f"docker could not start the job's container: {exc}") \
                    from exc
            lock = LockLines(request.share, request.label, limits.wall_time_s) \
                if request.share is not None and request.channel else None
            config = {"argv": argv, "env": env, "cwd": str(request.cwd or request.out_dir),
                      "rlimits": {"core": 0}, "kill": "all", "kill_uid": 65534,
                      "timeout_s": limits.wall_time_s, "log_bytes": limits.log_bytes,
                      "compile_budget_s": compile_budget_s(limits, request.channel),
                      "channel": request.channel, "hold": hold, "lock": lock is not None}
            if request.hand_over is not None and request.keep_names:  # sweep in place
                config.update(hand_over=request.hand_over, keep=request.keep_names,
                              out_dir=str(request.out_dir))  # (_supervisor.py point 10)
            try:
                worker = _ExecStream(client, container, _supervisor.command(python, config),
                                     limits, lock)
            except docker.errors.DockerException as exc:
                raise SandboxUnavailable(f"docker failed while running the job: {exc}") from exc
        except BaseException:
            self._remove(container)
            raise
        return _DockerStart(self, client, container, worker, request, limits, config, notes)

    def _finish(self, client, container, worker: _ExecStream, request: SandboxRequest,
                limits: Limits, config: dict, notes: list[str]) -> ExecResult:
        """Release the held supervisor, wait for its report, copy the outputs out."""
        import docker.errors

        start = time.monotonic()
        tenant, held = None, None
        try:
            try:
                # held and already gone: nothing of the candidate ran (see `stopped` below)
                # ended, not merely not started yet: an exec the engine has not begun (a
                # busy machine) also reads Running false, but has no exit code (it ran fine
                # and was called "ended while it waited": a neighbour run's exit 3)
                state = client.api.exec_inspect(worker.exec_id)
                ended_held = bool(config.get("hold")) and not state.get("Running", True) \
                    and state.get("ExitCode") is not None
                tenant = worker.lock.join(_Paused(container, worker), request.cancel) \
                    if worker.lock is not None else None
                worker.release()  # `go` (a start not held ignores it; the lock too)
                try:
                    code, out, err, host_timeout = self._await_worker(
                        client, container, worker, config, limits, request.cancel,
                        tenant.frozen_seconds if tenant is not None else None)
                finally:
                    if worker.lock is not None:
                        worker.lock.leave()
            except docker.errors.DockerException as exc:
                raise SandboxUnavailable(f"docker failed while running the job: {exc}") from exc
            stderr, report = _supervisor.split_report(err)
            if report is None or report.get("tree_killed") is False or host_timeout:
                self._exec(client, container, ["/bin/sh", "-c", "kill -9 -1; exit 0"])
            elif config.get("hand_over") is not None:
                held = self._hold(container, request, limits, report)
            if held is None:
                notes += self._collect(client, container, request, limits)
            else:
                notes += held[1]
        finally:
            if held is None:
                self._remove(container)
        stopped = _supervisor.stopped_while_held(report)
        if stopped is None and ended_held and not host_timeout:
            stopped = f"the sandbox ended (exit code {code}) while it waited"
        if stopped is not None:  # the candidate never ran: kgb's side (subproc._result too)
            self._remove(container)
            raise not_started(stopped, report)
        if report is None:
            notes.append("the sandbox supervisor did not report (killed from outside?); return "
                         "code and timeout are the host's view")
            timed_out, returncode, truncated = host_timeout, code, False
        else:
            timed_out = bool(report.get("timed_out")) or host_timeout
            returncode, truncated = report.get("returncode"), bool(report.get("truncated"))
            notes += [str(n) for n in report.get("notes") or ()]
        channel = report.get("channel") if isinstance(report, dict) else None
        frozen = tenant.frozen_s if tenant is not None else 0.0  # other jobs' windows
        return ExecResult(None if timed_out else returncode, timed_out,
                          max(0.0, time.monotonic() - start - frozen),
                          out.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"),
                          truncated, tuple(notes),
                          channel if isinstance(channel, dict) else None, worker_seconds(report),
                          held[0] if held is not None else None)

    def _hold(self, container, request: SandboxRequest, limits: Limits,
              report: dict | None) -> tuple[HeldOutputs, list[str]] | None:
        """Outputs handed over in place (_supervisor.py point 10): the supervisor swept the
        output tmpfs once every uid-65534 process was dead; the host reads it through
        /proc/PID/root of the container's idle process where it may (root beside a local
        engine), copies out only the small files, and the container stays until the judge is
        done. None: copy everything out as before (the tar stream where the host cannot)."""
        from kgb.sandbox import handover

        seen = handover.described(report, "swept")
        if seen is None:
            return None
        files, ident = seen
        try:
            container.reload()
            pid = int(container.attrs["State"]["Pid"])
        except Exception:  # the engine's own errors too: the copy-out reports them
            return None
        folder = handover.locate([pid], str(request.out_dir), ident, files) if pid > 0 else None
        if folder is None:
            return None
        try:
            copied = handover.copy_small(folder, Path(request.out_dir), files,
                                         request.hand_over or 0, limits.output_bytes)
        except (OSError, ValueError):
            return None  # the copy-out copies everything again over it (O_TRUNC)
        return (HeldOutputs(folder, ident, files, lambda: self._remove(container)),
                list(handover.notes(files, copied, report, "swept")))

    def _spec(self, request: SandboxRequest, limits: Limits, image_id: str,
              env: dict[str, str], notes: list[str]) -> dict:
        from docker.types import LogConfig, Mount, Ulimit

        ro = set(images.host_mounts()) if self.image_ref == "host" else set()
        ro |= {p for p in ETC_MOUNTS if os.path.exists(p)} if self.image_ref == "host" else set()
        if self.image_ref == "host":
            ro |= {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
        ro.add(os.path.realpath(_supervisor.__file__))  # the container's own entry point
        for p in request.ro_paths:
            ro |= {str(p), os.path.realpath(p)}
        ro = {p for p in ro if os.path.exists(p)}
        ro = {p for p in ro if not any(p.startswith(q + "/") for q in ro)}  # nested: covered
        mounts = [Mount(target=p, source=p, type="bind", read_only=True) for p in sorted(ro)]
        if self.image_ref == "host":  # the image's /sbin holds docker-init; Triton runs
            for name in images.SBIN_TOOLS:  # /sbin/ldconfig -p to find libcuda
                if os.path.isfile(f"/sbin/{name}"):
                    mounts.append(Mount(target=f"/sbin/{name}", type="bind", read_only=True,
                                        source=os.path.realpath(f"/sbin/{name}")))
        owned = "uid=65534,gid=65534,mode=0700"
        # exec: Triton and torch.compile load the shared objects they build from the scratch
        tmpfs = {"/tmp": f"size={limits.tmp_bytes},mode=1777,exec",
                 str(request.tmp_dir): f"size={limits.tmp_bytes},{owned},exec",
                 str(request.out_dir): f"size={limits.output_bytes},{owned}"}
        label = request.label or "unlabelled"
        spec = dict(
            # A held container waits for its slot's previous job first (Sandbox.start): its
            # idle process outlives any job; teardown and `kgb sandbox clean` remove it.
            image=image_id, command=["sleep", str(HELD_CONTAINER_S)],
            name=f"kgb-{_slug(label)}-{secrets.token_hex(3)}",
            labels={LABEL_RUN: run_id_of(label), LABEL_JOB: label,
                    LABEL_OWNER: f"{socket.gethostname()}:{os.getpid()}"},
            user="0:0", init=True, read_only=True, network_mode="none", hostname="kgb",
            cap_drop=["ALL"], security_opt=["no-new-privileges"],
            pids_limit=limits.max_processes + 3,  # + docker-init, sleep, the supervisor
            mem_limit=container_memory(limits), memswap_limit=container_memory(limits),
            nano_cpus=int(limits.cpus * 1e9), shm_size=SHM_BYTES, tmpfs=tmpfs, mounts=mounts,
            ulimits=[Ulimit(name="core", soft=0, hard=0)], log_config=LogConfig(type="none"),
            environment={"PATH": "/usr/local/bin:/usr/bin:/bin"}, working_dir="/",
            auto_remove=True, detach=True)
        if request.device.startswith("cuda"):
            if self._has_gpu_runtime():
                spec["device_requests"] = [self._gpu_request(request.device, env, notes)]
            else:
                spec["devices"] = gpu_device_nodes(request.device, env, notes)
                mounts += [Mount(target=d, source=d, type="bind", read_only=True)
                           for d in gpu.driver_library_dirs() if not any(
                               d == p or d.startswith(p + "/") for p in ro)]
        return spec

    def _has_gpu_runtime(self) -> bool:
        """Whether the engine can hand out GPUs itself (NVIDIA's container toolkit registers
        an `nvidia` runtime); without it kgb passes the device nodes and driver libraries
        as bwrap does (docs/sandboxes.md, "Docker on a GPU")."""
        if self._gpu_runtime is None:
            mode = os.environ.get("KGB_DOCKER_GPU", "auto")
            if mode in ("toolkit", "nodes"):
                self._gpu_runtime = mode == "toolkit"
            else:
                info = self._engine().info()
                self._gpu_runtime = "nvidia" in (info.get("Runtimes") or {})
        return self._gpu_runtime

    @staticmethod
    def _gpu_request(device: str, env: dict[str, str], notes: list[str]):
        from docker.types import DeviceRequest

        chosen = gpu.resolve(device)
        if chosen is not None and chosen.uuid:
            env["CUDA_VISIBLE_DEVICES"] = chosen.uuid
            ids = [chosen.uuid]
        else:
            ids = [device.split(":")[1] if ":" in device else "0"]
            env["CUDA_VISIBLE_DEVICES"] = "0"  # the one GPU the container sees
            notes.append("GPU UUID unknown: the device request names the GPU by index")
        return DeviceRequest(device_ids=ids, capabilities=[["gpu"]])

    def _await_worker(self, client, container, worker: _ExecStream, config: dict,
                      limits: Limits, cancel: threading.Event | None = None,
                      frozen: Callable[[], float] | None = None):
        """Wait for the released supervisor; (exit code, stdout, stderr, host timed out or
        cancelled). `frozen`: seconds the timing lock kept it paused, which move the
        deadline out."""
        deadline = time.monotonic() + limits.wall_time_s + float(config["compile_budget_s"]) \
            + HOST_GRACE_S
        reader = worker.reader
        while reader.is_alive() and \
                time.monotonic() < deadline + (frozen() if frozen is not None else 0.0) and \
                not (cancel is not None and cancel.is_set()):
            reader.join(0.1)
        host_timeout = reader.is_alive()
        if host_timeout:  # the supervisor itself is stuck or was stopped: kill from outside
            if not self._exec(client, container, ["/bin/sh", "-c", "kill -9 -1; exit 0"]):
                _quietly(container.kill)
            reader.join(10)
            if reader.is_alive():
                _quietly(container.kill)
                reader.join(10)
        worker.close()
        code = _quietly(lambda: client.api.exec_inspect(worker.exec_id).get("ExitCode"))
        return code, bytes(worker.kept["out"]), bytes(worker.kept["err"]), host_timeout

    @staticmethod
    def _exec(client, container, cmd: list[str]) -> bool:
        try:
            exec_id = client.api.exec_create(container.id, cmd, user=WORKER_USER)["Id"]
            client.api.exec_start(exec_id)
            return True
        except Exception:
            return False

    def _collect(self, client, container, request: SandboxRequest, limits: Limits) -> list[str]:
        """Copy the outputs out, after every worker process is dead: straight from the output
        tmpfs where the host can reach it (`_collect_direct`), else through a tar stream."""
        direct = _collect_direct(container, request, limits)
        return direct if direct is not None else self._collect_tar(client, container, request,
                                                                   limits)

    def _collect_tar(self, client, container, request: SandboxRequest,
                     limits: Limits) -> list[str]:
        """Stream the output tmpfs out with tar (uid 65534) and unpack regular files and
        folders, at most output_bytes, on the host."""
        budget = limits.output_bytes + limits.output_bytes // 8 + 4 * MiB  # + tar headers
        try:
            exec_id = client.api.exec_create(
                container.id, ["tar", "-C", str(request.out_dir), "-cf", "-", "."],
                user=WORKER_USER)["Id"]
            stream = client.api.exec_start(exec_id, stream=True, demux=True)
            with tempfile.SpooledTemporaryFile(max_size=16 * MiB) as spool:
                size = 0
                for out, _ in stream:
                    if out and size < budget:
                        spool.write(out[:budget - size])
                        size += len(out)
                spool.seek(0)
                return unpack(spool, Path(request.out_dir), limits.output_bytes,
                              request.keep_names)
        except Exception as exc:
            return [f"could not copy the outputs out of the container: {exc}"]


class _ExecStream:
    """The supervisor's `docker exec`, attached: its stdin (for `go`) and its output frames,
    drained by a thread that keeps the first bytes of each stream."""

    def __init__(self, client, container, cmd: list[str], limits: Limits,
                 lock: LockLines | None = None) -> None:
        self.lock = lock
        splitter = LiveSplitter(lock.line) if lock is not None else None
        api = client.api
        self.exec_id = api.exec_create(container.id, cmd, user=WORKER_USER, workdir="/",
                                       stdin=True)["Id"]
        self.sock = api.exec_start(self.exec_id, socket=True)
        self.kept = {"out": bytearray(), "err": bytearray()}
        caps = {"out": limits.log_bytes, "err": limits.log_bytes + REPORT_ROOM}

        def pump() -> None:
            from docker.utils.socket import frames_iter

            try:
                for stream_id, chunk in frames_iter(self.sock, tty=False):
                    key = "err" if stream_id == 2 else "out"
                    if key == "out" and splitter is not None:
                        chunk = splitter.feed(chunk)
                    if chunk and len(self.kept[key]) < caps[key]:
                        self.kept[key] += chunk[:caps[key] - len(self.kept[key])]
            except Exception:
                pass

        self.reader = threading.Thread(target=pump, daemon=True)
        self.reader.start()

    def release(self, line: bytes = b"go\n") -> None:
        raw = getattr(self.sock, "_sock", self.sock)
        try:
            raw.sendall(line)
        except OSError:
            pass  # the supervisor is gone already: its report (or none) says why

    def close(self) -> None:
        _quietly(self.sock.close)


class _Paused:
    """A container the timing lock freezes whole (docker's cgroup freezer: `pause`), and its
    supervisor's stdin (kgb/runner/gpu_share.py, Freezable)."""

    def __init__(self, container, worker: _ExecStream) -> None:
        self.container, self.worker = container, worker
        self.say_lock = threading.Lock()

    def freeze(self) -> bool:
        import docker.errors

        try:
            self.container.pause()
        except docker.errors.NotFound:
            return True  # gone: nothing of it runs
        except docker.errors.DockerException:
            return False
        return True

    def thaw(self) -> None:
        _quietly(self.container.unpause)

    def say(self, line: bytes) -> None:
        with self.say_lock:
            self.worker.release(line)


class _DockerStart:
    def __init__(self, sandbox: DockerSandbox, client, container, worker: _ExecStream,
                 request: SandboxRequest, limits: Limits, config: dict,
                 notes: list[str]) -> None:
        self.sandbox, self.client, self.container, self.worker = sandbox, client, container, \
            worker
        self.request, self.limits, self.config, self.notes = request, limits, config, notes

    def go(self) -> ExecResult:
        return self.sandbox._finish(self.client, self.container, self.worker, self.request,
                                    self.limits, self.config, self.notes)

    def abandon(self) -> None:
        self.worker.close()
        self.sandbox._remove(self.container)


def unpack(fileobj, dest: Path, budget: int, keep: str | None = None) -> list[str]:
    """Unpack a tar stream into dest: regular files and folders only, no absolute or `..`
    names, nothing through links, at most `budget` bytes; with `keep` (a regular expression)
    only top-level regular files whose names match it. Returns notes on what was skipped."""
    skipped, total = 0, 0
    root = dest.resolve()
    try:
        tar = tarfile.open(fileobj=fileobj, mode="r|")  # noqa: SIM115 - `with tar` below
    except tarfile.TarError:
        return []  # empty output folder: tar wrote nothing usable
    with tar:
        for member in tar:
            name = os.path.normpath(member.name)
            if name in (".", "") and member.isdir():
                continue
            target = (root / name)
            if keep is not None and not (member.isreg() and re.match(keep, name)):
                skipped += 1
                continue
            if name.startswith(("/", "..")) or not (member.isreg() or member.isdir()) \
                    or os.path.realpath(target.parent) != str(target.parent) \
                    or not str(target).startswith(str(root) + "/"):
                skipped += 1
                continue
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            if total + member.size > budget:
                skipped += 1
                continue
            source = tar.extractfile(member)
            if source is None:  # not a regular file after all: nothing to copy
                skipped += 1
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as f:
                while chunk := source.read(1 << 20):
                    f.write(chunk)
            total += member.size
    return [f"{skipped} output entries that are not regular files or folders (or over the "
            "cap) were not copied out"] if skipped else []


def _collect_direct(container, request: SandboxRequest, limits: Limits) -> list[str] | None:
    """Copy the outputs from the container's output tmpfs as the host sees it, through
    /proc/PID/root of the container's idle init process, with the supervisor's copy (regular
    files and folders only, never through a link, sendfile, at most output_bytes). The tar
    stream through the engine cost 12-25 s per GiB on the 2-core machine (about 2 s this way,
    as bwrap's copy-out) and +9 s per job on an H200 (docs/gpu.md run 18). Only where the
    engine's processes are this host's and readable (root, a local engine): the pid's cgroup
    must name this container and its mounts an output tmpfs at the folder, else None and the
    tar stream runs. No candidate process is alive by now, so nothing can swap an entry for a
    link between the copy's checks and its opens."""
    try:
        container.reload()
        pid = int(container.attrs["State"]["Pid"])
        if pid <= 0 or container.id not in Path(f"/proc/{pid}/cgroup").read_text():
            return None
        target = str(request.out_dir)
        mounts = Path(f"/proc/{pid}/mountinfo").read_text().splitlines()
        if not any(line.split()[4] == target and " - tmpfs " in line for line in mounts):
            return None
        dst = os.open(request.out_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    except Exception:  # the engine's own errors (docker.errors): the tar path reports them
        return None
    try:
        _, skipped = _supervisor._copy_out(f"/proc/{pid}/root{target}", dst,
                                           limits.output_bytes, request.keep_names)
    except OSError:
        return None  # the tar stream copies it again over what was copied (O_TRUNC)
    finally:
        os.close(dst)
    return [f"{skipped} output entries that are not regular files or folders (or over the "
            "cap) were not copied out"] if skipped else []


def _teardown(container, settle_s: float = 10.0) -> None:
    """stop → kill → remove; each step may find the container already gone (auto_remove).
    Then wait until the engine no longer lists it: a removal the engine had in progress (409
    on ours) left it listed for a moment after a job or an abandoned start had returned."""
    import docker.errors

    for step in (lambda: container.stop(timeout=1), container.kill,
                 lambda: container.remove(force=True)):
        try:
            step()
        except docker.errors.NotFound:
            return
        except docker.errors.APIError:
            continue
    deadline = time.monotonic() + settle_s
    while time.monotonic() < deadline:
        try:
            container.reload()
        except docker.errors.NotFound:
            return
        except docker.errors.APIError:
            pass
        time.sleep(0.05)


def _quietly(fn):
    try:
        return fn()
    except Exception:
        return None


def _is_host_python(path: str) -> bool:
    real = os.path.realpath(path)
    return any(real.startswith(os.path.realpath(p) + "/") for p in (sys.prefix, sys.base_prefix))


def _slug(label: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_.-]+", "-", label)[:48].strip("-.") or "job"


__all__ = ["LABEL_JOB", "LABEL_OWNER", "LABEL_RUN", "DockerSandbox", "run_id_of", "unpack"]


def gpu_device_nodes(device: str, env: dict[str, str], notes: list[str]) -> list[str]:
    """Docker `devices` entries for a job on `device` without NVIDIA's runtime: the control
    nodes every CUDA process opens and the job's own /dev/nvidiaN — never another GPU's —
    each also allowed by the container's device cgroup."""
    nodes = [n for n in gpu.CONTROL_NODES if os.path.exists(n)]
    chosen = gpu.resolve(device)
    if chosen is not None and chosen.node and os.path.exists(chosen.node):
        nodes.append(chosen.node)
        env["CUDA_VISIBLE_DEVICES"] = chosen.uuid or "0"
    else:
        notes.append("could not tell which /dev/nvidiaN is the job's GPU: every GPU node is "
                     "passed and only CUDA_VISIBLE_DEVICES selects it")
        nodes += gpu.all_nodes()
        env["CUDA_VISIBLE_DEVICES"] = device.split(":")[1] if ":" in device else "0"
    return [f"{n}:{n}:rwm" for n in nodes]


def container_memory(limits: Limits) -> int:
    """The container's memory cgroup limit. The cgroup charges the pages of its tmpfs folders
    (the outputs, /tmp and the scratch folder) like the processes' own memory, so a limit of
    `memory_bytes` alone killed honest GPU jobs whose saved outputs outgrew it (an 8192² GELU:
    signal 9 on an H100, docs/gpu.md run 15): the processes still get `memory_bytes`, plus
    room for what the folders may hold under their own caps."""
    return limits.memory_bytes + limits.output_bytes + 2 * limits.tmp_bytes
