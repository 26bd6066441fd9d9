"""scripts/gpu/vmm_probe.py (issue 24: outputs handed to the judge on the GPU through a CUDA VMM
arena) on the CPU. The GPU steps run only on the lent machine; here: --dry prints the plan and
checks the ctypes tables; the struct layouts, enum values and prototypes are checked against a
real cuda.h where one is installed (a wrong layout is the likeliest way for the probe to fail
silently); a wrong layout is caught; the fd handout reaches a worker plain, through bwrap
(inherited) and over a Unix socket bound into bwrap (SCM_RIGHTS)."""

from __future__ import annotations

import ctypes
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

SCRIPT = ROOT / "scripts" / "gpu" / "vmm_probe.py"


def _probe_module():
    if "vmm_probe" not in sys.modules:
        spec = importlib.util.spec_from_file_location("vmm_probe", SCRIPT)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules["vmm_probe"] = module  # dataclasses resolve annotations through it
        spec.loader.exec_module(module)
    return sys.modules["vmm_probe"]


def test_dry_prints_the_plan_and_checks_the_tables(tmp_path):
    env = {**os.environ, "OUT": str(tmp_path)}
    done = subprocess.run([sys.executable, str(SCRIPT), "--dry"], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows[0] == ["step", "ok", "figure", "note"]
    assert all(len(row) == 4 for row in rows)
    by_step = {row[0]: row for row in rows}
    probe = _probe_module()
    for step, _ in probe.PLAN:
        assert by_step[step][1] == "plan", step
    for name in ("CUmemAllocationProp", "CUmemAccessDesc", "CUmemLocation", "CUipcMemHandle"):
        assert by_step[f"0.layout.{name}"][1] == "yes", by_step[f"0.layout.{name}"]
    assert by_step["0.layout.CUmemAllocationProp"][2] == "32"
    assert by_step["0.signatures"][1:3] == ["yes", str(len(probe.SIGNATURES))]
    assert "import torch" not in done.stderr  # nothing CUDA was touched
    assert (tmp_path / "vmm_probe.tsv").read_text() == done.stdout


def test_a_wrong_layout_is_caught():
    probe = _probe_module()

    class NoMetaData(ctypes.Structure):  # the prop without its pointer: 24 bytes, not 32
        _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int),
                    ("location", probe.CUmemLocation), ("allocFlags", probe.CUmemAllocFlags)]

    header = probe.LAYOUT["CUmemAllocationProp"]
    wrong = {"CUmemAllocationProp": (NoMetaData, header[1],
                                     {k: v for k, v in header[2].items()
                                      if k != "win32HandleMetaData"})}
    [(name, ok, size, note)] = probe.layout_findings(wrong)
    assert (name, ok, size) == ("CUmemAllocationProp", False, 24)
    assert "header: size 32" in note
    assert all(ok for _, ok, _, _ in probe.layout_findings())


def _cuda_header() -> Path | None:
    found = sorted(glob.glob("/usr/local/cuda*/include/cuda.h"))
    found += glob.glob(os.path.join(os.path.dirname(sys.executable), "..", "lib", "python3*",
                                    "site-packages", "triton", "backends", "nvidia", "include",
                                    "cuda.h"))
    return Path(found[0]) if found else None


def test_tables_match_the_cuda_header(tmp_path):
    """sizeof/offsetof and every constant as the C compiler sees the real header; each symbol
    declared there (directly or as the target of a cuda.h macro) with as many parameters as
    its ctypes argument list."""
    header, cc = _cuda_header(), shutil.which("cc") or shutil.which("gcc")
    if header is None or cc is None:
        pytest.skip("no cuda.h or no C compiler on this machine")
    probe = _probe_module()
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <cuda.h>",
             "int main(void) {", 'printf("CUDA_VERSION %d\\n", CUDA_VERSION);']
    c_names = {"CUmemAllocFlags": None}  # anonymous in C: checked through its parent
    for name, (_, _, offsets) in probe.LAYOUT.items():
        if name in c_names:
            continue
        lines.append(f'printf("{name} sizeof %zu\\n", sizeof({name}));')
        for field in offsets:
            lines.append(f'printf("{name} {field} %zu\\n", offsetof({name}, {field}));')
    for field in ("compressionType", "gpuDirectRDMACapable", "usage", "reserved"):
        lines.append(f'printf("CUmemAllocFlags {field} %zu\\n", offsetof(CUmemAllocationProp, '
                     f'allocFlags.{field}) - offsetof(CUmemAllocationProp, allocFlags));')
    lines.append('printf("CUmemAllocFlags sizeof %zu\\n", '
                 'sizeof(((CUmemAllocationProp *)0)->allocFlags));')
    for name in probe.CONSTANTS:
        lines.append(f'printf("{name} %lld\\n", (long long){name});')
    lines += ["return 0;", "}"]
    source = tmp_path / "layout.c"
    source.write_text("\n".join(lines) + "\n")
    binary = tmp_path / "layout"
    built = subprocess.run([cc, "-I", str(header.parent), str(source), "-o", str(binary)],
                           capture_output=True, text=True, timeout=60)
    assert built.returncode == 0, built.stderr
    seen = dict(line.rsplit(" ", 1) for line in subprocess.run(
        [str(binary)], capture_output=True, text=True, check=True).stdout.splitlines())
    assert int(seen["CUDA_VERSION"]) >= 12000, seen["CUDA_VERSION"]
    for name, (_, size, offsets) in probe.LAYOUT.items():
        assert int(seen[f"{name} sizeof"]) == size, name
        for field, offset in offsets.items():
            assert int(seen[f"{name} {field}"]) == offset, (name, field)
    for name, value in probe.CONSTANTS.items():
        assert int(seen[name]) == value, name
    text = header.read_text(errors="replace")
    macros = dict(re.findall(r"#define\s+(cu\w+)\s+(?:__CUDA_API_PTDS\()?(cu\w+)\)?", text))
    for symbol, argtypes in probe.SIGNATURES.items():
        declared = [symbol] + [api for api, target in macros.items() if target == symbol]
        prototype = None
        for api in declared:
            match = re.search(rf"CUresult CUDAAPI {api}\(([^)]*)\)", text)
            if match:
                prototype = match.group(1).strip()
                break
        assert prototype is not None, f"{symbol}: not declared in {header}"
        count = 0 if prototype in ("", "void") else prototype.count(",") + 1
        assert count == len(argtypes), (symbol, prototype)


def test_the_fd_reaches_the_worker_plain_through_bwrap_and_over_a_socket(tmp_path):
    """The handout plumbing without CUDA: a file's fd, inherited by a plain child, inherited
    through bwrap, and sent over the socket bound into bwrap: the worker's fstat names the same
    file."""
    probe = _probe_module()
    target = tmp_path / "arena"
    target.write_bytes(b"x")
    fd = os.open(target, os.O_RDONLY)
    judge = probe.Judge(probe.Report(None), 60.0, 0)
    judge.arena = {"fd": fd, "size": 0}
    routes = [(False, "fd")]
    judge.setup_bwrap()
    if judge.bwrap is not None:
        routes += [(True, "fd"), (True, "sock")]
    try:
        for sandbox, transport in routes:
            child, handout = judge.launch(judge.spec("fdcheck"), sandbox, transport)
            try:
                done = child.wait_for("done", timeout=30)
                assert done.get("event") == "done", (sandbox, transport, child.describe(done))
                assert done["ino"] == os.fstat(fd).st_ino, (sandbox, transport)
                assert child.reap()[0] == 0
            finally:
                child.kill()
                if handout is not None:
                    handout.close()
    finally:
        os.close(fd)
    if judge.bwrap is None:
        pytest.skip(f"bwrap unusable here: {judge.report.rows[-1]}")
