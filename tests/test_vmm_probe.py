"""scripts/gpu/vmm_probe.py (issue 24: outputs handed to the judge on the GPU through a CUDA VMM
arena) on the CPU. The GPU steps run only on the lent machine; here: --dry prints the plan and
checks the ctypes tables; the struct layouts, enum values and prototypes are checked against a
real cuda.h where one is installed (a wrong layout is the likeliest way for the probe to fail
silently); a wrong layout is caught; the fd handout reaches a worker plain, through bwrap
(inherited) and over a Unix socket bound into bwrap (SCM_RIGHTS); and every step runs end to end
against a fake libcuda (memfd-backed "device" memory, compiled against cuda.h's own prototypes,
checking every struct field it is passed) with numpy in place of torch, so a Python slip in a
step the CPU cannot otherwise reach does not cost the one GPU call."""

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


# The fake driver: cuda.h's prototypes (a mismatching definition does not compile), each struct
# field checked, memfd-backed "device" memory so fds cross processes and namespaces for real.
FAKE_LIBCUDA = r"""
/* A fake libcuda for tests/test_vmm_probe.py: the VMM calls on memfd-backed host memory, with
 * cuda.h's own prototypes (a mismatch does not compile) and every struct field checked. */
#define _GNU_SOURCE
#include <cuda.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define GRAN (2ull << 20)
#define OK CUDA_SUCCESS
#define BAD CUDA_ERROR_INVALID_VALUE
#define HANDLE(fd) ((CUmemGenericAllocationHandle)(fd) | (1ull << 40))
#define FIXED_NONE (MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE)
typedef CUmemGenericAllocationHandle Handle;

static int fd_of(Handle h) { return (h >> 40) == 1 ? (int)(h & 0xffffffffu) : -1; }
static int ok_location(const CUmemLocation *l) {
    return l->type == CU_MEM_LOCATION_TYPE_DEVICE && l->id == 0;
}
static int ok_prop(const CUmemAllocationProp *p) {
    static const unsigned char zero[sizeof p->allocFlags];
    return p->type == CU_MEM_ALLOCATION_TYPE_PINNED
        && p->requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        && ok_location(&p->location) && p->win32HandleMetaData == NULL
        && memcmp(&p->allocFlags, zero, sizeof zero) == 0;
}

CUresult CUDAAPI cuInit(unsigned int flags) { return flags ? BAD : OK; }
CUresult CUDAAPI cuDriverGetVersion(int *version) { *version = 13000; return OK; }
CUresult CUDAAPI cuGetErrorName(CUresult error, const char **text) {
    static char name[64];
    snprintf(name, sizeof name, "FAKE_ERROR_%d", (int)error);
    *text = name;
    return OK;
}
CUresult CUDAAPI cuGetErrorString(CUresult error, const char **text) {
    return cuGetErrorName(error, text);
}
CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
    *device = 0;
    return ordinal ? CUDA_ERROR_INVALID_DEVICE : OK;
}
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev) {
    snprintf(name, (size_t)len, "fake VMM device %d", dev);
    return OK;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute attrib, CUdevice dev) {
    if (dev) return CUDA_ERROR_INVALID_DEVICE;
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: *value = 1; return OK;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1000; return OK;
    default: return BAD;
    }
}
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
    *ctx = (CUcontext)0x1;
    return dev ? CUDA_ERROR_INVALID_DEVICE : OK;
}
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
    return ctx == (CUcontext)0x1 ? OK : CUDA_ERROR_INVALID_CONTEXT;
}
CUresult CUDAAPI cuCtxSynchronize(void) { return OK; }
CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity,
                                               const CUmemAllocationProp *prop,
                                               CUmemAllocationGranularity_flags option) {
    if (!ok_prop(prop) || option > CU_MEM_ALLOC_GRANULARITY_RECOMMENDED) return BAD;
    *granularity = GRAN;
    return OK;
}
CUresult CUDAAPI cuMemCreate(Handle *handle, size_t size, const CUmemAllocationProp *prop,
                             unsigned long long flags) {
    if (!ok_prop(prop) || flags || size % GRAN) return BAD;
    int fd = memfd_create("fake-vmm", 0);
    if (fd < 0 || ftruncate(fd, (off_t)size)) return CUDA_ERROR_OUT_OF_MEMORY;
    *handle = HANDLE(fd);
    return OK;
}
CUresult CUDAAPI cuMemRelease(Handle handle) {
    int fd = fd_of(handle);
    return fd < 0 || close(fd) ? BAD : OK;
}
CUresult CUDAAPI cuMemExportToShareableHandle(void *out, Handle handle,
                                              CUmemAllocationHandleType type,
                                              unsigned long long flags) {
    int fd = fd_of(handle);
    if (fd < 0 || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || flags) return BAD;
    *(int *)out = dup(fd);
    return *(int *)out < 0 ? BAD : OK;
}
CUresult CUDAAPI cuMemImportFromShareableHandle(Handle *handle, void *os_handle,
                                                CUmemAllocationHandleType type) {
    struct stat st;
    int fd = (int)(intptr_t)os_handle;
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || fstat(fd, &st)) return BAD;
    *handle = HANDLE(dup(fd));
    return OK;
}
CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                     CUdeviceptr addr, unsigned long long flags) {
    if (size % GRAN || addr || flags || (alignment && alignment % GRAN)) return BAD;
    void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    *ptr = (CUdeviceptr)p;
    return OK;
}
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size) {
    return munmap((void *)ptr, size) ? BAD : OK;
}
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, Handle handle,
                          unsigned long long flags) {
    int fd = fd_of(handle);
    if (fd < 0 || flags || offset) return BAD;
    void *p = mmap((void *)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, 0);
    return p == MAP_FAILED ? BAD : OK;
}
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                                size_t count) {
    if (count != 1 || !ok_location(&desc->location)
        || desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) return BAD;
    return mprotect((void *)ptr, size, PROT_READ | PROT_WRITE) ? BAD : OK;
}
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size) {
    return mmap((void *)ptr, size, PROT_NONE, FIXED_NONE, -1, 0) == MAP_FAILED ? BAD : OK;
}

/* legacy IPC: cuMemAlloc'd memory is a memfd; its handle names the owner's /proc/PID/fd/FD,
 * which a process in another PID namespace cannot open (nor can it open the real driver's) */
static struct { CUdeviceptr ptr; size_t size; int fd; } allocs[16];
static int slot(CUdeviceptr ptr) {
    for (int i = 0; i < 16; i++) if (allocs[i].ptr == ptr) return i;
    return -1;
}
CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t size) {
    int i = slot(0), fd = memfd_create("fake-alloc", 0);
    if (i < 0 || fd < 0 || ftruncate(fd, (off_t)size)) return CUDA_ERROR_OUT_OF_MEMORY;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    allocs[i].ptr = *dptr = (CUdeviceptr)p;
    allocs[i].size = size;
    allocs[i].fd = fd;
    return OK;
}
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr) {
    int i = slot(dptr);
    if (!dptr || i < 0) return BAD;
    munmap((void *)dptr, allocs[i].size);
    close(allocs[i].fd);
    allocs[i].ptr = 0;
    return OK;
}
CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dst, unsigned int value, size_t count) {
    for (size_t i = 0; i < count; i++) ((unsigned int *)dst)[i] = value;
    return OK;
}
CUresult CUDAAPI cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
    memcpy(dst, (void *)src, bytes);
    return OK;
}
CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr dptr) {
    int i = slot(dptr);
    if (!dptr || i < 0) return BAD;
    memset(handle, 0, sizeof *handle);
    snprintf(handle->reserved, sizeof handle->reserved, "fake %d %d %zu", (int)getpid(),
             allocs[i].fd, allocs[i].size);
    return OK;
}
CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle,
                                       unsigned int flags) {
    int pid, fd;
    size_t size;
    char path[64];
    if (flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
        || sscanf(handle.reserved, "fake %d %d %zu", &pid, &fd, &size) != 3) return BAD;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int mine = open(path, O_RDWR);
    if (mine < 0) return CUDA_ERROR_INVALID_HANDLE;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mine, 0);
    close(mine);
    if (p == MAP_FAILED) return CUDA_ERROR_INVALID_HANDLE;
    *dptr = (CUdeviceptr)p;
    return OK;
}
CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr) { return dptr ? OK : BAD; }
"""

# numpy in place of the slice of torch the probe uses (the CPU torch here has no CUDA and would
# take seconds to import in each of the probe's dozen processes).
FAKE_TORCH = '''
"""numpy in place of the slice of torch that scripts/gpu/vmm_probe.py uses (tests only)."""

import contextlib
import ctypes
import time

import numpy as np

__version__ = "fake (numpy)"
float32, int32, uint8 = np.float32, np.int32, np.uint8


class device:
    def __init__(self, kind):
        self.type = kind

    def __str__(self):
        return self.type


class Tensor:
    def __init__(self, array, keep=None):
        self.a, self._keep = array, keep  # keep: what owns the memory
        self.device = device("cpu")

    def numel(self):
        return self.a.size

    def data_ptr(self):
        return self.a.ctypes.data

    def __getitem__(self, key):
        return Tensor(np.asarray(self.a[key]), self)

    def item(self):
        return self.a.item()

    def copy_(self, other):
        self.a[...] = other.a
        return self

    def zero_(self):
        self.a[...] = 0
        return self

    def fill_(self, value):
        self.a[...] = value
        return self

    def add_(self, value):
        self.a += value
        return self

    def clone(self):
        return Tensor(self.a.copy())

    def float(self):
        return Tensor(self.a.astype(np.float32))

    def view(self, dtype):
        return Tensor(self.a.view(dtype), self)

    def numpy(self):
        return self.a

    def all(self):
        return Tensor(np.asarray(self.a.all()))

    def __bool__(self):
        return bool(self.a)

    def __mod__(self, other):
        return Tensor(self.a % other)

    def __add__(self, other):
        return Tensor(self.a + other)

    def __eq__(self, other):
        return Tensor(self.a == (other.a if isinstance(other, Tensor) else other))


def equal(a, b):
    return a.a.shape == b.a.shape and bool(np.array_equal(a.a, b.a))


def arange(n, dtype=None, device=None):
    return Tensor(np.arange(n, dtype=dtype))


def zeros(n, dtype=np.float32, device=None):
    return Tensor(np.zeros(n, dtype))


def empty(n, dtype=np.float32, device=None, pin_memory=False):
    assert not pin_memory, "no pinned memory on the CPU"
    return Tensor(np.empty(n, dtype))


def empty_like(t):
    return Tensor(np.empty_like(t.a))


class Generator:
    def __init__(self, device=None):
        self.seed = 0

    def manual_seed(self, seed):
        self.seed = seed
        return self


def randn(n, generator=None, device=None):
    return Tensor(np.random.default_rng(generator.seed).standard_normal(n, dtype=np.float32))


def as_tensor(obj):
    cai = obj.__cuda_array_interface__
    assert cai["typestr"] == "<f4" and cai["data"][1] is False and cai["strides"] is None
    ptr, (count,) = cai["data"][0], cai["shape"]
    memory = (ctypes.c_float * count).from_address(ptr)
    return Tensor(np.ctypeslib.as_array(memory), memory)


class _Cuda:
    class Stream:
        pass

    class Event:
        def record(self, stream=None):
            pass

        def query(self):
            return True

    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def stream(side):
        return contextlib.nullcontext()

    @staticmethod
    def _sleep(cycles):
        time.sleep(0.0005)

    @staticmethod
    def mem_get_info():
        return 1 << 40, 1 << 40


cuda = _Cuda()
'''


@pytest.mark.slow
def test_every_step_runs_against_a_fake_driver(tmp_path):
    header, cc = _cuda_header(), shutil.which("cc") or shutil.which("gcc")
    if header is None or cc is None:
        pytest.skip("no cuda.h or no C compiler on this machine")
    (tmp_path / "fake_libcuda.c").write_text(FAKE_LIBCUDA)
    library = tmp_path / "libfakecuda.so"
    built = subprocess.run([cc, "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-I",
                            str(header.parent), str(tmp_path / "fake_libcuda.c"), "-o",
                            str(library)], capture_output=True, text=True, timeout=60)
    assert built.returncode == 0, built.stderr
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(FAKE_TORCH)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "VMM_LIBCUDA": str(library),
           "VMM_DEVICE": "cpu", "VMM_ARENA_MB": "4", "VMM_BIG_GB": "0.02",
           "OUT": str(tmp_path / "out")}
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                          env=env, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = {row[0]: row for row in (line.split("\t") for line in done.stdout.splitlines())}
    assert (tmp_path / "out" / "vmm_probe.tsv").read_text() == done.stdout
    expected_yes = ["1.driver", "1.device", "1.posix_fd_supported", "1.granularity",
                    "2.same_process", "3a.child_fill", "3b.frozen_after_sigkill",
                    "3c.frozen_after_exit_nosync", "5a.legacy_ipc_plain",
                    "6b.arena_create_map_s", "6b.arena_copy_s", "6b.judge_read_s",
                    "6a.today_path_s"]
    sandboxed = ["4a.bwrap_inherited_fd", "4b.bwrap_scm_rights_fd", "4b.frozen_after_sigkill",
                 "4c.frozen_with_fds_parked", "4c.frozen_after_judge_closes"]
    if rows["4.bwrap"][1] == "yes":
        expected_yes += sandboxed
        # the fake's legacy handle names /proc/PID/fd/FD, unreachable from another PID
        # namespace: the failure is reported as a line, the run goes on
        assert rows["5b.legacy_ipc_bwrap"][1] == "no"
        assert "cuIpcOpenMemHandle_v2 -> FAKE_ERROR_400" in rows["5b.legacy_ipc_bwrap"][3]
        assert "(differs)" in rows["4a.bwrap_inherited_fd"][3]
    else:
        assert all(rows[name][1] == "skip" for name in sandboxed)
    for name in expected_yes:
        assert rows[name][1] == "yes", rows[name]
    assert rows["5a.legacy_ipc_plain"][2] == "0x5eed1234"
    assert "arena == the judge's own regeneration: True" in rows["6b.judge_read_s"][3]
    assert "(same)" in rows["3a.child_fill"][3]
    assert not [row for row in rows.values() if row[1] == "no" and row[0] not in
                ("3b.live_writes_seen", "5b.legacy_ipc_bwrap")]  # the fake runs no kernels
