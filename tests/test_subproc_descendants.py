"""kgb.sandbox.subproc.descendants: the tree a job's wait remembers (to kill escapees later),
read from the kernel's children lists instead of every process's stat file (issue 24: the
host's CPU while it waits)."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil

from kgb.sandbox import subproc

# A child that forks from a second thread (the kernel lists that child under the thread) a
# grandchild in a new session (an escapee), which has a child of its own.
_TREE = """
import subprocess, sys, threading, time
def spawn():
    subprocess.Popen([sys.executable, "-c",
                      "import subprocess, sys, time; "
                      "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']); "
                      "time.sleep(30)"], start_new_session=True)
    time.sleep(30)
threading.Thread(target=spawn, daemon=True).start()
print("up", flush=True)
time.sleep(30)
"""


def test_descendants_are_psutils_children_of_the_whole_tree() -> None:
    root = subprocess.Popen([sys.executable, "-c", _TREE], stdout=subprocess.PIPE, text=True)
    try:
        assert root.stdout is not None and root.stdout.readline().strip() == "up"
        expected: set[int] = set()
        for _ in range(100):  # until the great-grandchild exists
            expected = {p.pid for p in psutil.Process(root.pid).children(recursive=True)}
            if len(expected) == 2:
                break
            time.sleep(0.05)
        assert len(expected) == 2 and root.pid not in expected
        assert subproc.descendants(root.pid) == expected
    finally:
        pids = subproc.descendants(root.pid)
        root.kill()
        root.wait()
        for pid in pids:
            try:
                psutil.Process(pid).kill()
            except psutil.Error:
                pass
    assert subproc.descendants(root.pid) == set()  # an ended process has none
