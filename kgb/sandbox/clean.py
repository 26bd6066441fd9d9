"""`kgb sandbox clean`: remove what a killed kgb left behind (SWE-bench style: leftovers are
found by label/prefix, never guessed).

- docker: containers labelled `kgb.run` (optionally one run id). A container whose owning kgb
  process (`kgb.owner` = host:pid) is still alive on this host is left alone unless `everything`.
- bwrap / process: orphaned supervisors (`_supervisor.py` re-parented to init: their kgb died)
  are asked to stop, which kills their worker trees; bwrap's host state folders of dead kgb
  processes are removed. (bwrap sandboxes themselves die with their parent.)
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import tempfile

import psutil

SUPERVISOR = "_supervisor.py"


def _owner_alive(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another host's container: its kgb cannot be checked from here
    return psutil.pid_exists(int(pid))


def clean_docker(run_id: str | None, everything: bool) -> list[str]:
    try:
        from kgb.sandbox.docker import LABEL_OWNER, LABEL_RUN, _client

        client = _client(timeout=30)
        client.ping()
    except Exception as exc:
        return [f"docker: skipped ({str(exc).splitlines()[0][:120] if str(exc) else exc!r})"]
    lines = []
    try:
        label = f"{LABEL_RUN}={run_id}" if run_id else LABEL_RUN
        for container in client.containers.list(all=True, filters={"label": label}):
            owner = container.labels.get(LABEL_OWNER, "")
            if not everything and container.status == "running" and _owner_alive(owner):
                lines.append(f"docker: kept {container.name} (its kgb, {owner}, is running; "
                             "--all removes it)")
                continue
            try:
                container.remove(force=True)
                lines.append(f"docker: removed {container.name} "
                             f"(run {container.labels.get(LABEL_RUN)})")
            except Exception as exc:
                lines.append(f"docker: could not remove {container.name}: {exc}")
    finally:
        client.close()
    return lines or ["docker: no leftover containers"]


def clean_processes() -> list[str]:
    lines = []
    try:  # when kgb itself is pid 1 (in a container), re-parented to 1 means nothing
        if any("kgb" in part for part in psutil.Process(1).cmdline()):
            return []
    except psutil.Error:
        pass
    for proc in psutil.process_iter(["pid", "ppid", "cmdline"]):
        try:
            cmd = proc.info["cmdline"] or []
            if proc.info["ppid"] == 1 and any(part.endswith(SUPERVISOR) for part in cmd):
                proc.send_signal(signal.SIGTERM)  # it kills its worker tree, then exits
                lines.append(f"process: stopped orphaned supervisor {proc.info['pid']}")
        except psutil.Error:
            continue
    return lines


def clean_bwrap_state() -> list[str]:
    from kgb.sandbox.bwrap import STATE_PREFIX

    lines = []
    for folder in glob.glob(os.path.join(tempfile.gettempdir(), f"{STATE_PREFIX}*")):
        pid = os.path.basename(folder)[len(STATE_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and psutil.pid_exists(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        lines.append(f"bwrap: removed {folder}")
    return lines


def clean(run_id: str | None = None, everything: bool = False) -> list[str]:
    """Everything removed or kept, one line each."""
    lines = clean_docker(run_id, everything)
    lines += clean_processes() + clean_bwrap_state()
    return lines
