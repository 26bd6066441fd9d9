"""Issue 24 probe: can a sandboxed worker hand its outputs to the judge on the GPU itself?

The design under test (docs/gpu-ipc.md): the JUDGE (trusted) allocates an arena with the CUDA
driver's virtual memory management API (cuMemCreate, exportable as a POSIX file descriptor) and
hands the fd to the worker; the worker (untrusted, in bubblewrap: its own PID, user, IPC and
network namespaces) imports and maps it, copies its outputs in on the device, and exits; only
once the worker's whole process tree is reaped does the judge read the arena. This prints one
TSV line per finding (step, ok, figure, note) to stdout and to $OUT/vmm_probe.tsv:

  1   driver version, device, POSIX-fd export support, allocation granularity
  2   one process: create 1 GiB, export, import back, map twice, write one view, read the other
  3   judge -> plain child (pass_fds): the child fills, exits, the judge checks the pattern;
      a child keeps writing from a side stream and is SIGKILLed (3b) or exits without
      synchronizing (3c): does the judge's view change after the child is reaped?
  4   the same across bubblewrap (kgb's namespaces): the fd inherited (4a), sent over a Unix
      socket bound into the sandbox with SCM_RIGHTS (4b); 4c: a worker that parks its own
      /dev/nvidia* fds in the judge's socket before dying (does its context outlive it?)
  5   legacy CUDA IPC (cuIpcGetMemHandle/cuIpcOpenMemHandle) plain (control) and across bwrap
  6   6.4 GB (the 1.6 G float32 softmax output): today's path (pinned chunks -> tmpfs file ->
      back to the GPU) vs the arena (device copy by the worker + the judge's comparison read)

    python scripts/gpu/vmm_probe.py          # on the GPU machine (bash scripts/gpu/vmm_probe.sh)
    python scripts/gpu/vmm_probe.py --dry    # anywhere: the plan and the ctypes tables, no CUDA

Pure ctypes on libcuda.so.1 (no cuda-python there); torch only to fill, copy and compare. Every
step runs in its own try and the whole run keeps to VMM_BUDGET_S (default 80 s) of wall time.
NOT RUN ON A GPU YET when written (session 32): its first run is the finding.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import queue
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# ---------------------------------------------------------------------------------------------
# CUDA driver API tables. Source: cuda.h of CUDA 13.0 (`#define CUDA_VERSION 13000`, the
# toolkit's include/cuda.h; the same definitions as NVIDIA cuda-python's cydriver.pxd.in
# "generated with version 13.0.0"). The VMM structs have had this layout since CUDA 10.2
# (11.x named allocFlags' last 6 bytes `reserved[6]`; 12.x split them into `usage` + 4 bytes:
# same size, zero either way). tests/test_vmm_probe.py compiles the header where there is one
# and checks every number below against it.
# ---------------------------------------------------------------------------------------------
CUDA_SUCCESS = 0
CU_MEM_ALLOCATION_TYPE_PINNED = 0x1           # CUmemAllocationType
CU_MEM_HANDLE_TYPE_NONE = 0x0                 # CUmemAllocationHandleType
CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1
CU_MEM_LOCATION_TYPE_DEVICE = 0x1             # CUmemLocationType
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3      # CUmemAccess_flags
CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0        # CUmemAllocationGranularity_flags
CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1
CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13           # CUdevice_attribute (kHz)
CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102
CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103
CU_IPC_HANDLE_SIZE = 64
CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1      # CUipcMem_flags

# Test hooks, unset on the GPU: tests/test_vmm_probe.py runs every step on the CPU against a
# fake driver (memfd-backed allocations) with torch's CPU device and a small arena.
LIBCUDA = os.environ.get("VMM_LIBCUDA", "libcuda.so.1")
DEVICE = os.environ.get("VMM_DEVICE", "cuda")
ARENA_BYTES = int(os.environ.get("VMM_ARENA_MB", "1024")) << 20
TEST_HOOKS = ("VMM_LIBCUDA", "VMM_DEVICE", "VMM_ARENA_MB")

CONSTANTS = {name: value for name, value in globals().items()
             if name.startswith(("CU_", "CUDA_")) and isinstance(value, int)}

CUdeviceptr = ctypes.c_uint64                 # unsigned long long on LP64
CUmemGenericAllocationHandle = ctypes.c_uint64
CUdevice = ctypes.c_int
CUresult = ctypes.c_int                       # enums are int-sized


class CUmemLocation(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class CUmemAllocFlags(ctypes.Structure):      # CUmemAllocationProp_st's anonymous allocFlags
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class CUmemAllocationProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int),
                ("location", CUmemLocation), ("win32HandleMetaData", ctypes.c_void_p),
                ("allocFlags", CUmemAllocFlags)]


class CUmemAccessDesc(ctypes.Structure):
    _fields_ = [("location", CUmemLocation), ("flags", ctypes.c_int)]


class CUipcMemHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * CU_IPC_HANDLE_SIZE)]


# sizeof and offsetof as the C compiler lays the header's structs out on x86-64 (LP64): ints 4,
# pointers 8 (so win32HandleMetaData is padded to 16), the flags struct 1+1+2+4.
LAYOUT: dict[str, tuple[type[ctypes.Structure], int, dict[str, int]]] = {
    "CUmemLocation": (CUmemLocation, 8, {"type": 0, "id": 4}),
    "CUmemAllocationProp": (CUmemAllocationProp, 32,
                            {"type": 0, "requestedHandleTypes": 4, "location": 8,
                             "win32HandleMetaData": 16, "allocFlags": 24}),
    "CUmemAllocFlags": (CUmemAllocFlags, 8,
                        {"compressionType": 0, "gpuDirectRDMACapable": 1, "usage": 2,
                         "reserved": 4}),
    "CUmemAccessDesc": (CUmemAccessDesc, 12, {"location": 0, "flags": 8}),
    "CUipcMemHandle": (CUipcMemHandle, 64, {"reserved": 0}),
}

P = ctypes.POINTER
# Symbol -> argument types (every one returns CUresult). The names are the ABI symbols cuda.h's
# macros resolve to: cuMemAlloc -> cuMemAlloc_v2, cuIpcOpenMemHandle -> cuIpcOpenMemHandle_v2...
SIGNATURES: dict[str, list[Any]] = {
    "cuInit": [ctypes.c_uint],
    "cuDriverGetVersion": [P(ctypes.c_int)],
    "cuGetErrorName": [CUresult, P(ctypes.c_char_p)],
    "cuGetErrorString": [CUresult, P(ctypes.c_char_p)],
    "cuDeviceGet": [P(CUdevice), ctypes.c_int],
    "cuDeviceGetName": [ctypes.c_char_p, ctypes.c_int, CUdevice],
    "cuDeviceGetAttribute": [P(ctypes.c_int), ctypes.c_int, CUdevice],
    "cuDevicePrimaryCtxRetain": [P(ctypes.c_void_p), CUdevice],
    "cuCtxSetCurrent": [ctypes.c_void_p],
    "cuCtxSynchronize": [],
    "cuMemGetAllocationGranularity": [P(ctypes.c_size_t), P(CUmemAllocationProp), ctypes.c_int],
    "cuMemCreate": [P(CUmemGenericAllocationHandle), ctypes.c_size_t, P(CUmemAllocationProp),
                    ctypes.c_ulonglong],
    "cuMemRelease": [CUmemGenericAllocationHandle],
    # shareableHandle: for a POSIX fd, a pointer to an int that receives the fd
    "cuMemExportToShareableHandle": [ctypes.c_void_p, CUmemGenericAllocationHandle, ctypes.c_int,
                                     ctypes.c_ulonglong],
    # osHandle: for a POSIX fd, the fd's value itself cast to void* (NVIDIA's memMapIPCDrv)
    "cuMemImportFromShareableHandle": [P(CUmemGenericAllocationHandle), ctypes.c_void_p,
                                       ctypes.c_int],
    "cuMemAddressReserve": [P(CUdeviceptr), ctypes.c_size_t, ctypes.c_size_t, CUdeviceptr,
                            ctypes.c_ulonglong],
    "cuMemAddressFree": [CUdeviceptr, ctypes.c_size_t],
    "cuMemMap": [CUdeviceptr, ctypes.c_size_t, ctypes.c_size_t, CUmemGenericAllocationHandle,
                 ctypes.c_ulonglong],
    "cuMemUnmap": [CUdeviceptr, ctypes.c_size_t],
    "cuMemSetAccess": [CUdeviceptr, ctypes.c_size_t, P(CUmemAccessDesc), ctypes.c_size_t],
    "cuMemAlloc_v2": [P(CUdeviceptr), ctypes.c_size_t],
    "cuMemFree_v2": [CUdeviceptr],
    "cuMemsetD32_v2": [CUdeviceptr, ctypes.c_uint, ctypes.c_size_t],
    "cuMemcpyDtoH_v2": [ctypes.c_void_p, CUdeviceptr, ctypes.c_size_t],
    "cuIpcGetMemHandle": [P(CUipcMemHandle), CUdeviceptr],
    "cuIpcOpenMemHandle_v2": [P(CUdeviceptr), CUipcMemHandle, ctypes.c_uint],  # handle by value
    "cuIpcCloseMemHandle": [CUdeviceptr],
}

PLAN = [
    ("1.driver", "libcuda's driver version (cuDriverGetVersion)"),
    ("1.device", "device 0's name; VMM supported (attribute 102)"),
    ("1.posix_fd_supported", "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED"),
    ("1.granularity", "minimum / recommended allocation granularity, bytes"),
    ("2.same_process", "1 GiB: create, export fd, import back, map twice, write A, read B"),
    ("3a.child_fill", "plain child imports the fd (pass_fds), fills, exits; judge checks after"),
    ("3b.live_writes_seen", "child writing from a side stream: judge sees the values move"),
    ("3b.frozen_after_sigkill", "child SIGKILLs itself mid-writing: view unchanged after reap"),
    ("3c.frozen_after_exit_nosync", "child exits normally without synchronizing: same check"),
    ("4.bwrap", "bwrap found, namespaces as kgb's (+ --unshare-user) work here"),
    ("4a.bwrap_inherited_fd", "fd inherited through bwrap: child fills, judge checks"),
    ("4b.bwrap_scm_rights_fd", "fd sent over a Unix socket bound into the sandbox (SCM_RIGHTS)"),
    ("4b.frozen_after_sigkill", "sandboxed writer SIGKILLed: view unchanged after reap"),
    ("4c.frozen_with_fds_parked", "attack: worker parks its /dev/nvidia* fds in the judge's "
                                  "socket, dies: view unchanged after reap?"),
    ("4c.frozen_after_judge_closes", "same, after the judge closes the socket"),
    ("5a.legacy_ipc_plain", "control: cuIpcOpenMemHandle in a plain child (expected to work)"),
    ("5b.legacy_ipc_bwrap", "cuIpcOpenMemHandle across bwrap's PID namespace (expected: fails)"),
    ("6b.arena_create_map_s", "6.4 GB arena: judge's cuMemCreate + export + map, seconds"),
    ("6b.arena_copy_s", "worker's device copy into the imported mapping, median of 3, s"),
    ("6b.judge_read_s", "judge's torch.equal of the arena against its reference, median of 3"),
    ("6a.today_path_s", "pinned chunks -> tmpfs file -> back to the GPU, median of 3, s"),
    ("6.ratio", "today's path / (arena copy + judge read)"),
]


class CudaError(RuntimeError):
    def __init__(self, call: str, code: int, name: str) -> None:
        super().__init__(f"{call} -> {name} ({code})")
        self.call, self.code, self.name = call, code, name


class Driver:
    """libcuda.so.1 with SIGNATURES applied; `drv("cuX", ...)` raises CudaError on failure."""

    def __init__(self, path: str = "") -> None:
        self.lib = ctypes.CDLL(path or LIBCUDA)
        self.missing: list[str] = []
        self.fns: dict[str, Any] = {}
        for name, argtypes in SIGNATURES.items():
            try:
                fn = getattr(self.lib, name)
            except AttributeError:
                self.missing.append(name)
                continue
            fn.restype, fn.argtypes = CUresult, argtypes
            self.fns[name] = fn

    def __call__(self, name: str, *args: Any) -> None:
        fn = self.fns.get(name)
        if fn is None:
            raise CudaError(name, -1, "symbol not in libcuda")
        code = fn(*args)
        if code != CUDA_SUCCESS:
            raise CudaError(name, code, self.error_name(code))

    def error_name(self, code: int) -> str:
        text = ctypes.c_char_p()
        fn = self.fns.get("cuGetErrorName")
        if fn is None or fn(code, ctypes.byref(text)) != CUDA_SUCCESS or not text.value:
            return f"CUresult {code}"
        return text.value.decode()

    def attribute(self, attr: int, dev: int) -> int:
        value = ctypes.c_int()
        self("cuDeviceGetAttribute", ctypes.byref(value), attr, dev)
        return value.value


def primary_context(drv: Driver, ordinal: int = 0) -> int:
    """Make device `ordinal`'s primary context current (the one torch's runtime uses)."""
    drv("cuInit", 0)
    dev, ctx = CUdevice(), ctypes.c_void_p()
    drv("cuDeviceGet", ctypes.byref(dev), ordinal)
    drv("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev.value)
    drv("cuCtxSetCurrent", ctx)
    return dev.value


def alloc_prop(dev: int, handle_type: int = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
               ) -> CUmemAllocationProp:
    prop = CUmemAllocationProp()  # ctypes zero-fills: win32HandleMetaData and allocFlags 0
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED
    prop.requestedHandleTypes = handle_type
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = dev
    return prop


def granularity(drv: Driver, dev: int, option: int = CU_MEM_ALLOC_GRANULARITY_MINIMUM) -> int:
    value = ctypes.c_size_t()
    drv("cuMemGetAllocationGranularity", ctypes.byref(value), ctypes.byref(alloc_prop(dev)),
        option)
    return value.value


def round_up(size: int, unit: int) -> int:
    return -(-size // unit) * unit


def create_exported(drv: Driver, dev: int, size: int) -> tuple[int, int]:
    """The judge's side: a physical allocation of `size` bytes and a POSIX fd for it."""
    handle = CUmemGenericAllocationHandle()
    drv("cuMemCreate", ctypes.byref(handle), size, ctypes.byref(alloc_prop(dev)), 0)
    fd = ctypes.c_int(-1)
    try:
        drv("cuMemExportToShareableHandle", ctypes.byref(fd), handle.value,
            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)
    except CudaError:
        drv("cuMemRelease", handle.value)
        raise
    return handle.value, fd.value


def import_fd(drv: Driver, fd: int) -> int:
    handle = CUmemGenericAllocationHandle()
    drv("cuMemImportFromShareableHandle", ctypes.byref(handle), ctypes.c_void_p(fd),
        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return handle.value


def map_handle(drv: Driver, dev: int, handle: int, size: int, align: int) -> int:
    """Reserve a VA range, map the allocation there, make it read-write for `dev`."""
    ptr = CUdeviceptr()
    drv("cuMemAddressReserve", ctypes.byref(ptr), size, align, 0, 0)
    try:
        drv("cuMemMap", ptr.value, size, 0, handle, 0)
        access = CUmemAccessDesc()
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE
        access.location.id = dev
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE
        try:
            drv("cuMemSetAccess", ptr.value, size, ctypes.byref(access), 1)
        except CudaError:
            drv("cuMemUnmap", ptr.value, size)
            raise
    except CudaError:
        drv("cuMemAddressFree", ptr.value, size)
        raise
    return ptr.value


def unmap(drv: Driver, ptr: int, size: int) -> None:
    with contextlib.suppress(CudaError):
        drv("cuMemUnmap", ptr, size)
    with contextlib.suppress(CudaError):
        drv("cuMemAddressFree", ptr, size)


class _CudaArray:
    """The smallest __cuda_array_interface__ (v2: no stream) torch.as_tensor aliases."""

    def __init__(self, ptr: int, count: int, typestr: str) -> None:
        self.__cuda_array_interface__ = {"shape": (count,), "typestr": typestr,
                                         "data": (ptr, False), "strides": None, "version": 2}


def as_tensor(ptr: int, nbytes: int) -> Any:
    """A float32 torch tensor over [ptr, ptr + nbytes) WITHOUT a copy (checked)."""
    import torch

    tensor = torch.as_tensor(_CudaArray(ptr, nbytes // 4, "<f4"))
    if tensor.device.type != DEVICE or tensor.data_ptr() != ptr:
        raise RuntimeError(f"torch.as_tensor copied the mapping (device {tensor.device}, "
                           f"data_ptr {tensor.data_ptr():#x} != {ptr:#x})")
    return tensor


def pattern(count: int, tag: int) -> Any:
    """A per-step float32 pattern, exact in float32 (values below 2**24)."""
    import torch

    return (torch.arange(count, dtype=torch.int32, device=DEVICE) % 1000003 + tag).float()


def pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError as exc:
        return f"? ({exc.strerror})"


# ---------------------------------------------------------------------------------------------
# The worker side (a child: plain, or inside bwrap). Talks to the judge with "@{json}" lines on
# stdout and one line on stdin ("die") where it has to wait.
# ---------------------------------------------------------------------------------------------
def _emit(**message: Any) -> None:
    sys.stdout.write("@" + json.dumps(message) + "\n")
    sys.stdout.flush()


def _worker_fd(spec: dict[str, Any]) -> tuple[int, socket.socket | None]:
    if "fd" in spec:
        fd = int(spec["fd"])
        try:
            os.fstat(fd)
        except OSError as exc:
            raise RuntimeError(f"inherited fd {fd} is not open here ({exc.strerror})") from exc
        return fd, None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(20)
    sock.connect(spec["sock"])
    _, fds, _, _ = socket.recv_fds(sock, 16, 4)
    if not fds:
        raise RuntimeError("no fd came over the socket")
    return fds[0], sock


def _nvidia_fds() -> list[int]:
    found = []
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{name}").startswith("/dev/nvidia"):
                found.append(int(name))
    return found


def worker_main(spec: dict[str, Any]) -> int:
    _emit(event="start", pid=os.getpid(), pidns=pid_namespace())
    where = "start"
    try:
        if spec["role"] == "legacy":
            where = "legacy"
            drv = Driver()
            primary_context(drv)
            handle = CUipcMemHandle()
            ctypes.memmove(ctypes.addressof(handle), bytes.fromhex(spec["handle"]),
                           CU_IPC_HANDLE_SIZE)
            ptr = CUdeviceptr()
            drv("cuIpcOpenMemHandle_v2", ctypes.byref(ptr), handle,
                CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
            value = ctypes.c_uint32()
            drv("cuMemcpyDtoH_v2", ctypes.byref(value), ptr.value, 4)
            drv("cuIpcCloseMemHandle", ptr.value)
            _emit(event="done", value=value.value)
            return 0
        if spec["role"] == "fdcheck":  # no CUDA: the handout plumbing alone (the unit test)
            where = "fd"
            fd, _ = _worker_fd(spec)
            st = os.fstat(fd)
            _emit(event="done", ino=st.st_ino, dev=st.st_dev, fd=fd)
            return 0
        where = "torch init"
        import torch

        torch.zeros(1, device=DEVICE)
        drv = Driver()
        dev = primary_context(drv)
        where = "fd"
        fd, sock = _worker_fd(spec)
        where = "import+map"
        size, align = int(spec["size"]), int(spec["align"])
        start = time.perf_counter()
        ptr = map_handle(drv, dev, import_fd(drv, fd), size, align)
        view = as_tensor(ptr, size)
        map_s = time.perf_counter() - start
        where = spec["role"]
        if spec["role"] == "fill":
            view.copy_(pattern(view.numel(), int(spec["tag"])))
            torch.cuda.synchronize()
            _emit(event="done", map_s=map_s)
            return 0
        if spec["role"] == "copy":
            gen = torch.Generator(device=DEVICE)
            gen.manual_seed(int(spec["seed"]))
            count = int(spec["count"])
            source = torch.randn(count, generator=gen, device=DEVICE)
            target = view[:count]
            times = []
            for _ in range(int(spec["reps"])):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                target.copy_(source)
                torch.cuda.synchronize()
                times.append(time.perf_counter() - t0)
            _emit(event="done", map_s=map_s, copy_s=times)
            return 0
        # "writer": keep writing from a side stream, then die as told without synchronizing
        region = view[: int(spec["region"])]
        region.zero_()
        torch.cuda.synchronize()
        side, first = torch.cuda.Stream(), torch.cuda.Event()
        with torch.cuda.stream(side):
            for step in range(int(spec["steps"])):
                torch.cuda._sleep(int(spec["sleep_cycles"]))
                region.add_(1.0)
                if step == 0:
                    first.record(side)
        deadline = time.monotonic() + 10
        while not first.query() and time.monotonic() < deadline:
            time.sleep(0.005)
        parked = 0
        if spec.get("park_fds") and sock is not None:
            fds = _nvidia_fds()
            socket.send_fds(sock, [b"N"], fds)
            parked = len(fds)
        _emit(event="launched", live=bool(first.query()), parked=parked)
        sys.stdin.readline()
        if spec["end"] == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        return 0  # a normal interpreter exit with the side stream still busy
    except BaseException as exc:  # the judge reads this line; never a bare traceback
        _emit(event="error", where=where, error=f"{type(exc).__name__}: {exc}")
        return 3


# ---------------------------------------------------------------------------------------------
# The judge side.
# ---------------------------------------------------------------------------------------------
class Report:
    def __init__(self, path: str | None) -> None:
        self.file = open(path, "w") if path else None  # noqa: SIM115 (lives as long as the run)
        self.rows: list[tuple[str, str, str, str]] = []
        self.stdout = True
        self._line("step", "ok", "figure", "note")

    def add(self, step: str, ok: str, figure: Any = "", note: str = "") -> None:
        clean = " ".join(str(note).replace("\t", " ").split())[:600]
        self.rows.append((step, ok, str(figure), clean))
        self._line(step, ok, str(figure), clean)

    def _line(self, *cells: str) -> None:
        line = "\t".join(cells)
        if self.stdout:
            try:
                print(line, flush=True)
            except BrokenPipeError:  # stdout's reader left (| head): the file still gets it
                self.stdout = False
        if self.file:
            self.file.write(line + "\n")
            self.file.flush()


@dataclass
class Child:
    """A worker process: its "@" messages on a queue, stderr kept in a file for the notes."""

    proc: subprocess.Popen
    errors: Any
    messages: queue.Queue = field(default_factory=queue.Queue)
    ended: bool = False  # its output closed: every later wait returns at once

    @classmethod
    def start(cls, argv: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()
              ) -> Child:
        errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed with the Child)
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=errors, env=env, pass_fds=pass_fds)
        child = cls(proc, errors)
        threading.Thread(target=child._read, daemon=True).start()
        return child

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").strip()
            if line.startswith("@"):
                with contextlib.suppress(ValueError):
                    self.messages.put(json.loads(line[1:]))
        self.messages.put({"event": "eof"})

    def wait_for(self, *events: str, timeout: float = 40) -> dict[str, Any]:
        """The next message among `events` (an "error" or the end of output ends the wait)."""
        deadline = time.monotonic() + timeout
        while True:
            if self.ended and self.messages.empty():
                return {"event": "eof"}
            left = deadline - time.monotonic()
            if left <= 0:
                return {"event": "timeout", "error": f"no {'/'.join(events)} in {timeout:.0f} s"}
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            self.ended = self.ended or message["event"] == "eof"
            if message["event"] in (*events, "error", "eof"):
                return message

    def tell(self, line: str) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()

    def reap(self, timeout: float = 30) -> tuple[int | None, float]:
        start = time.perf_counter()
        try:
            code: int | None = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            code = None
        return code, time.perf_counter() - start

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)

    def stderr_tail(self) -> str:
        self.errors.seek(0)
        lines = self.errors.read().decode(errors="replace").strip().splitlines()
        return " | ".join(lines[-3:])

    def describe(self, message: dict[str, Any]) -> str:
        if message.get("event") == "error":
            return f"worker failed at {message.get('where')}: {message.get('error')}"
        tail = self.stderr_tail()
        return f"{message.get('error', message.get('event'))}; stderr: {tail or '-'}"


class SocketHandout:
    """A Unix socket in its own folder: the first connection gets `fd` by SCM_RIGHTS. With
    keep=True the judge holds the connection open afterwards and never reads it (4c)."""

    def __init__(self, fd: int, keep: bool) -> None:
        self.folder = tempfile.mkdtemp(prefix="kgb-vmm-sock-")
        self.path = os.path.join(self.folder, "s")
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.path)
        self.server.listen(1)
        self.server.settimeout(40)
        self.conn: socket.socket | None = None
        self.error = ""
        self.keep = keep
        self.thread = threading.Thread(target=self._serve, args=(fd,), daemon=True)
        self.thread.start()

    def _serve(self, fd: int) -> None:
        try:
            conn, _ = self.server.accept()
            socket.send_fds(conn, [b"F"], [fd])
            self.conn = conn
            if not self.keep:
                self.close_conn()
        except OSError as exc:
            self.error = f"{type(exc).__name__}: {exc}"

    def close_conn(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(OSError):
                self.conn.close()
            self.conn = None

    def close(self) -> None:
        self.close_conn()
        with contextlib.suppress(OSError):
            self.server.close()
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class Judge:
    report: Report
    budget_s: float
    big_bytes: int
    started: float = field(default_factory=time.monotonic)
    drv: Driver | None = None
    dev: int = 0
    gran: int = 0
    arena: dict[str, int] = field(default_factory=dict)  # the 1 GiB one: handle, fd, ptr, size
    view: Any = None
    bwrap: list[str] | None = None
    bwrap_note: str = ""
    pidns: str = field(default_factory=pid_namespace)

    # -- plumbing ---------------------------------------------------------------------------
    def left(self) -> float:
        return self.budget_s - (time.monotonic() - self.started)

    def step(self, names: list[str], need_s: float, fn: Callable[[], None]) -> None:
        """Run one step; a failure or a lack of time becomes lines for `names`, never a crash."""
        if self.left() < need_s:
            for name in names:
                self.report.add(name, "skip", "", f"budget: {self.left():.0f} s left, "
                                                  f"the step needs about {need_s:.0f} s")
            return
        try:
            fn()
        except Exception as exc:
            self.report.add(names[0], "no", "", f"{type(exc).__name__}: {exc}")

    def worker_argv(self, spec: dict[str, Any]) -> list[str]:
        return [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)]

    def plain_env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONUNBUFFERED": "1"}

    def spec(self, role: str, **extra: Any) -> dict[str, Any]:
        return {"role": role, "size": self.arena["size"], "align": self.gran, **extra}

    # -- 1 ----------------------------------------------------------------------------------
    def probe_driver(self) -> None:
        import torch

        torch.zeros(1, device=DEVICE)  # torch's primary context first; ours is the same one
        self.drv = drv = Driver()
        if drv.missing:
            self.report.add("1.symbols", "no", len(drv.missing), ", ".join(drv.missing))
        self.dev = dev = primary_context(drv)
        version = ctypes.c_int()
        drv("cuDriverGetVersion", ctypes.byref(version))
        self.report.add("1.driver", "yes", version.value,
                        f"torch {torch.__version__}, python {sys.version.split()[0]}")
        name = ctypes.create_string_buffer(256)
        drv("cuDeviceGetName", name, 256, dev)
        vmm = drv.attribute(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev)
        self.report.add("1.device", "yes" if vmm else "no", name.value.decode(),
                        f"VMM supported: {vmm}; CUDA_VISIBLE_DEVICES="
                        f"{os.environ.get('CUDA_VISIBLE_DEVICES', '-')}")
        posix = drv.attribute(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev)
        self.report.add("1.posix_fd_supported", "yes" if posix else "no", posix)
        self.gran = granularity(drv, dev)
        recommended = granularity(drv, dev, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        self.report.add("1.granularity", "yes", self.gran, f"recommended {recommended}")

    # -- 2 ----------------------------------------------------------------------------------
    def same_process(self) -> None:
        import torch

        drv, dev = self._drv()
        size = round_up(ARENA_BYTES, self.gran)
        handle, fd = create_exported(drv, dev, size)
        self.arena = {"handle": handle, "fd": fd, "size": size}
        self.arena["ptr"] = map_handle(drv, dev, handle, size, self.gran)
        self.view = as_tensor(self.arena["ptr"], size)
        again = import_fd(drv, fd)
        ptr_b = map_handle(drv, dev, again, size, self.gran)
        try:
            view_b = as_tensor(ptr_b, size)
            expected = pattern(self.view.numel(), 7)
            self.view.copy_(expected)
            torch.cuda.synchronize()
            same = bool(torch.equal(view_b, expected))
            view_b.fill_(-1.0)  # and back the other way
            torch.cuda.synchronize()
            back = bool((self.view == -1.0).all())
            self.report.add("2.same_process", "yes" if same and back else "no", size,
                            f"fd {fd}; views {self.arena['ptr']:#x} and {ptr_b:#x}; "
                            f"A->B equal: {same}, B->A: {back}")
        finally:
            unmap(drv, ptr_b, size)
            with contextlib.suppress(CudaError):
                drv("cuMemRelease", again)

    def _drv(self) -> tuple[Driver, int]:
        if self.drv is None or not self.gran:
            raise RuntimeError("no driver or no granularity (step 1 failed)")
        return self.drv, self.dev

    def _need_arena(self) -> None:
        if not self.arena or self.view is None:
            raise RuntimeError("no arena (step 2 failed)")

    # -- 3 and 4: the worker's handout ------------------------------------------------------
    def launch(self, spec: dict[str, Any], sandbox: bool, transport: str, keep: bool = False
               ) -> tuple[Child, SocketHandout | None]:
        """Start a worker with the arena's fd: inherited (pass_fds) or over a Unix socket whose
        folder is bound into the sandbox."""
        handout = None
        fds: tuple[int, ...] = ()
        if transport == "fd":
            spec = {**spec, "fd": self.arena["fd"]}
            fds = (self.arena["fd"],)
        else:
            handout = SocketHandout(self.arena["fd"], keep=keep)
            spec = {**spec, "sock": handout.path}
        prefix = self.sandboxed(handout.folder if handout else None) if sandbox else []
        env = self._bwrap_host_env() if sandbox else self.plain_env()
        try:
            return Child.start(prefix + self.worker_argv(spec), env, fds), handout
        except BaseException:
            if handout is not None:
                handout.close()
            raise

    def fill(self, name: str, tag: int, sandbox: bool, transport: str) -> None:
        import torch

        self._need_arena()
        self.view.zero_()
        torch.cuda.synchronize()
        child, handout = self.launch(self.spec("fill", tag=tag), sandbox, transport)
        try:
            begin = child.wait_for("start", timeout=20)
            done = child.wait_for("done")
            code, _ = child.reap()
            if done.get("event") != "done":
                note = child.describe(done)
                if handout is not None and handout.error:
                    note += f"; socket: {handout.error}"
                self.report.add(name, "no", "", note)
                return
            ok = bool(torch.equal(self.view, pattern(self.view.numel(), tag)))
            self.report.add(name, "yes" if ok else "no", f"{done['map_s']:.4f}",
                            f"pattern {'intact' if ok else 'WRONG'} after the child's exit "
                            f"(rc {code}); child pid {begin.get('pid')}, pidns "
                            f"{begin.get('pidns')} vs judge {self.pidns} "
                            f"({'differs' if begin.get('pidns') != self.pidns else 'same'}); "
                            f"figure: the child's import+map+wrap seconds")
        finally:
            child.kill()
            if handout is not None:
                handout.close()

    def writer(self, frozen_name: str, end: str, sandbox: bool, transport: str,
               live_name: str | None = None, closed_name: str | None = None) -> None:
        """A worker keeps writing 2 MiB of the arena from a side stream (60 x a 50 ms sleep
        kernel + an add: 3 s queued), the judge watches it move, tells it to die (SIGKILL or a
        normal exit without synchronizing) and samples its own view for 0.5 s after the reap. With
        closed_name (4c) the worker first parks its /dev/nvidia* fds in the judge's socket,
        which the judge holds open unread until after the first sampling."""
        import torch

        self._need_arena()
        drv, dev = self._drv()
        self.view.zero_()
        torch.cuda.synchronize()
        region = 1 << 19  # 2 MiB of float32
        khz = 1_980_000  # an H100 SXM's boost clock, if the attribute is refused
        with contextlib.suppress(CudaError):
            khz = drv.attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev) or khz
        park = closed_name is not None
        spec = self.spec("writer", region=region, steps=60, sleep_cycles=int(khz * 50),
                         end=end, park_fds=park)
        child, handout = self.launch(spec, sandbox, transport, keep=park)
        watched = self.view[:region]
        try:
            launched = child.wait_for("launched")
            if launched.get("event") != "launched":
                self.report.add(live_name or frozen_name, "no", "", child.describe(launched))
                return
            live = []
            for _ in range(4):
                live.append(float(watched[0].item()))
                time.sleep(0.1)
            moving = len(set(live)) > 1
            if live_name:
                self.report.add(live_name, "yes" if moving else "no", len(set(live)),
                                f"the judge's reads of region[0] while the child writes: {live}")
            child.tell("die")
            code, exit_s = child.reap()
            frozen, seen = self._frozen(watched)
            note = (f"child {end} (rc {code}) reaped {exit_s:.3f} s after 'die'; region[0] "
                    f"sampled over 0.5 s after the reap: {seen}; before 'die': {live}"
                    + ("" if moving else "; the writer was NOT seen moving: a weak check"))
            if park:
                note += (f"; the worker parked {launched.get('parked')} /dev/nvidia* fds in "
                         "the judge's socket, still unread")
            self.report.add(frozen_name, "yes" if frozen else "no", len(set(seen)), note)
            if closed_name and handout is not None:
                handout.close_conn()
                time.sleep(0.2)
                frozen2, seen2 = self._frozen(watched)
                self.report.add(closed_name, "yes" if frozen2 else "no", len(set(seen2)),
                                f"after the judge closed its end of the socket: {seen2}")
        finally:
            child.kill()
            if handout is not None:
                handout.close()

    @staticmethod
    def _frozen(watched: Any) -> tuple[bool, list[float]]:
        import torch

        first = watched.clone()
        seen, frozen = [], True
        for _ in range(6):
            seen.append(float(watched[0].item()))
            frozen = frozen and bool(torch.equal(watched, first))
            time.sleep(0.1)
        return frozen, seen

    # -- 4: bubblewrap ----------------------------------------------------------------------
    def setup_bwrap(self) -> None:
        binary = os.environ.get("KGB_BWRAP", "")
        if not os.access(binary, os.X_OK):  # env.sh names the carried one even when absent
            binary = shutil.which("bwrap") or ""
        if not binary:
            self.report.add("4.bwrap", "no", "", "no bwrap (KGB_BWRAP unset, none on PATH): "
                                                 "run via scripts/gpu/vmm_probe.sh")
            return
        probe = [sys.executable, "-c", "import os; print(os.getpid(), "
                                       "os.readlink('/proc/self/ns/pid'))"]
        last = ""
        for user in (True, False):
            prefix = self._bwrap_prefix(binary, user)
            done = subprocess.run(prefix + probe, capture_output=True, text=True, timeout=30,
                                  env=self._bwrap_host_env())
            if done.returncode == 0:
                self.bwrap = prefix
                self.bwrap_note = (f"{binary}; --unshare-user {'on' if user else 'REFUSED, off'}"
                                   f"; sandboxed pid/ns: {done.stdout.strip()}")
                self.report.add("4.bwrap", "yes", "", self.bwrap_note + f" (judge {self.pidns})")
                return
            last = (done.stderr.strip().splitlines() or [f"rc {done.returncode}"])[-1]
        self.report.add("4.bwrap", "no", "", f"{binary} cannot start a sandbox: {last}")

    @staticmethod
    def _bwrap_host_env() -> dict[str, str]:
        return {**os.environ, "PYTHONUNBUFFERED": "1"}

    @staticmethod
    def _bwrap_prefix(binary: str, user: bool) -> list[str]:
        """kgb's namespaces (kgb/sandbox/bwrap.py _namespace_args, plus --unshare-user even as
        root) over the recipe measured on the GPU machine (shared/gpu-machine.md): the host
        read-only, a fresh /dev with the /dev/nvidia* nodes, a fresh /proc, a tmpfs /tmp, a
        cleared environment. Ends with "--"."""
        args = [binary, "--die-with-parent", "--new-session", "--unshare-ipc", "--unshare-pid",
                "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        if user:
            args += ["--unshare-user"]
        args += ["--ro-bind", "/", "/", "--dev", "/dev"]
        for node in sorted(os.listdir("/dev")):
            if node.startswith("nvidia"):
                args += ["--dev-bind", f"/dev/{node}", f"/dev/{node}"]
        args += ["--proc", "/proc", "--tmpfs", "/tmp"]
        for path in sorted({os.path.dirname(os.path.abspath(__file__)), sys.prefix,
                            os.path.dirname(os.path.realpath(sys.executable))}):
            if path == "/tmp" or path.startswith("/tmp/"):  # hidden by the tmpfs otherwise
                args += ["--ro-bind", path, path]
        passed = ("PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
                  "PYTHONPATH", *TEST_HOOKS)
        for key in ("PYTHONPATH", "VMM_LIBCUDA"):  # their folders under /tmp stay visible
            for path in os.environ.get(key, "").split(os.pathsep):
                if path.startswith("/tmp/") and os.path.exists(path):
                    args += ["--ro-bind", path, path]
        args += ["--clearenv"]
        for key in passed:
            if key in os.environ:
                args += ["--setenv", key, os.environ[key]]
        args += ["--setenv", "HOME", "/tmp", "--setenv", "PYTHONUNBUFFERED", "1",
                 "--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
        return args + ["--"]

    def sandboxed(self, socket_folder: str | None) -> list[str]:
        """The bwrap prefix, with the handout socket's folder bound (after the tmpfs /tmp)."""
        if self.bwrap is None:
            raise RuntimeError("no working bwrap (step 4.bwrap)")
        prefix = self.bwrap[:-1]
        if socket_folder:
            prefix += ["--bind", socket_folder, socket_folder]
        return prefix + ["--"]

    # -- 5: legacy IPC ----------------------------------------------------------------------
    def legacy(self, name: str, sandbox: bool) -> None:
        drv = self.drv  # needs no granularity: runs even where the VMM steps could not
        if drv is None:
            raise RuntimeError("no driver (step 1 failed)")
        ptr = CUdeviceptr()
        drv("cuMemAlloc_v2", ctypes.byref(ptr), 2 << 20)
        try:
            drv("cuMemsetD32_v2", ptr.value, 0x5EED1234, (2 << 20) // 4)
            drv("cuCtxSynchronize")
            handle = CUipcMemHandle()
            drv("cuIpcGetMemHandle", ctypes.byref(handle), ptr.value)
            raw = ctypes.string_at(ctypes.addressof(handle), CU_IPC_HANDLE_SIZE).hex()
            argv = (self.sandboxed(None) if sandbox else []) + self.worker_argv(
                {"role": "legacy", "handle": raw})
            env = self._bwrap_host_env() if sandbox else self.plain_env()
            child = Child.start(argv, env)
            try:
                begin = child.wait_for("start", timeout=20)
                done = child.wait_for("done", timeout=30)
                code, _ = child.reap()
            finally:
                child.kill()
            where = (f"child pidns {begin.get('pidns')} vs judge {self.pidns}; rc {code}")
            if done.get("event") == "done":
                good = done["value"] == 0x5EED1234
                self.report.add(name, "yes" if good else "no", f"{done['value']:#x}",
                                f"opened and read the judge's cudaMalloc memory; {where}")
            else:
                self.report.add(name, "no", "", f"{child.describe(done)}; {where}")
        finally:
            drv("cuMemFree_v2", ptr.value)

    # -- 6: timings -------------------------------------------------------------------------
    def timings(self) -> None:
        import torch

        drv, dev = self._drv()
        count = self.big_bytes // 4
        free, _ = torch.cuda.mem_get_info()
        if free < 4.5 * self.big_bytes:
            raise RuntimeError(f"{free / 1e9:.1f} GB free on the GPU, 6 needs "
                               f"{4.5 * self.big_bytes / 1e9:.1f}")
        seed = 20261127
        gen = torch.Generator(device=DEVICE)
        gen.manual_seed(seed)
        reference = torch.randn(count, generator=gen, device=DEVICE)
        torch.cuda.synchronize()
        size = round_up(self.big_bytes, self.gran)
        start = time.perf_counter()
        handle, fd = create_exported(drv, dev, size)
        ptr = map_handle(drv, dev, handle, size, self.gran)
        create_s = time.perf_counter() - start
        self.report.add("6b.arena_create_map_s", "yes", f"{create_s:.4f}", f"{size} bytes")
        try:
            view = as_tensor(ptr, size)[:count]
            view.zero_()
            torch.cuda.synchronize()
            spec = {"role": "copy", "size": size, "align": self.gran, "fd": fd, "seed": seed,
                    "count": count, "reps": 3}
            child = Child.start(self.worker_argv(spec), self.plain_env(), (fd,))
            try:
                done = child.wait_for("done", timeout=60)
                code, _ = child.reap()
            finally:
                child.kill()
            if done.get("event") != "done":
                self.report.add("6b.arena_copy_s", "no", "", child.describe(done))
                return
            copy_s = statistics.median(done["copy_s"])
            self.report.add("6b.arena_copy_s", "yes", f"{copy_s:.5f}",
                            f"{self.big_bytes / 1e9:.2f} GB in the worker (plain child, rc "
                            f"{code}); all: {[round(t, 5) for t in done['copy_s']]}; "
                            f"import+map {done['map_s']:.4f} s; "
                            f"{2 * self.big_bytes / copy_s / 1e12:.2f} TB/s read+write")
            reads, equal = [], True
            for _ in range(3):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                equal = bool(torch.equal(view, reference)) and equal
                torch.cuda.synchronize()
                reads.append(time.perf_counter() - t0)
            read_s = statistics.median(reads)
            self.report.add("6b.judge_read_s", "yes" if equal else "no", f"{read_s:.5f}",
                            f"arena == the judge's own regeneration: {equal}; all "
                            f"{[round(t, 5) for t in reads]}")
        finally:
            unmap(drv, ptr, size)
            with contextlib.suppress(CudaError):
                drv("cuMemRelease", handle)
            os.close(fd)
        today = self.today_path(reference)
        if today:
            self.report.add("6.ratio", "info", f"{today / (copy_s + read_s):.0f}",
                            f"today {today:.3f} s vs arena {copy_s + read_s:.5f} s (copy + "
                            "read; + the fixed create/import/map costs above)")

    def today_path(self, source: Any) -> float | None:
        """The output's bytes -> pinned 256 MiB chunks -> a tmpfs file -> back -> the GPU."""
        import torch

        nbytes = source.numel() * 4
        folder = "/dev/shm"
        try:
            if shutil.disk_usage(folder).free < nbytes + (1 << 30):
                folder = tempfile.gettempdir()
        except OSError:
            folder = tempfile.gettempdir()
        chunk = 256 << 20
        pinned = torch.empty(chunk, dtype=torch.uint8, pin_memory=DEVICE == "cuda")
        host = memoryview(pinned.numpy())
        src = source.view(torch.uint8)
        dst = torch.empty_like(src)
        path = os.path.join(folder, f"kgb-vmm-{os.getpid()}.bin")
        times: list[float] = []
        try:
            while len(times) < 3 and (not times or self.left() > 1.3 * times[-1] + 14):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                with open(path, "wb", buffering=0) as out:
                    for off in range(0, nbytes, chunk):
                        n = min(chunk, nbytes - off)
                        pinned[:n].copy_(src[off:off + n])
                        out.write(host[:n])
                with open(path, "rb", buffering=0) as back:
                    for off in range(0, nbytes, chunk):
                        n = min(chunk, nbytes - off)
                        back.readinto(host[:n])
                        dst[off:off + n].copy_(pinned[:n])
                torch.cuda.synchronize()
                times.append(time.perf_counter() - t0)
                os.unlink(path)
            same = bool(torch.equal(dst, src))
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)
        median = statistics.median(times)
        self.report.add("6a.today_path_s", "yes" if same else "no", f"{median:.3f}",
                        f"{len(times)} rep(s) {[round(t, 3) for t in times]} via {folder}; "
                        f"the bytes came back equal: {same}; "
                        f"{nbytes / median / 1e9:.2f} GB/s end to end")
        return median

    # -- the run ----------------------------------------------------------------------------
    def run(self) -> None:
        s = self.step
        s(["1.driver"], 5, self.probe_driver)
        if self.drv is None:
            return
        s(["2.same_process"], 5, self.same_process)
        s(["3a.child_fill"], 10, lambda: self.fill("3a.child_fill", 31, False, "fd"))
        s(["3b.live_writes_seen", "3b.frozen_after_sigkill"], 12,
          lambda: self.writer("3b.frozen_after_sigkill", "sigkill", False, "fd",
                              live_name="3b.live_writes_seen"))
        s(["4.bwrap"], 5, self.setup_bwrap)
        s(["5a.legacy_ipc_plain"], 6, lambda: self.legacy("5a.legacy_ipc_plain", False))
        if self.bwrap is not None:
            s(["4a.bwrap_inherited_fd"], 10,
              lambda: self.fill("4a.bwrap_inherited_fd", 43, True, "fd"))
            s(["4b.bwrap_scm_rights_fd"], 10,
              lambda: self.fill("4b.bwrap_scm_rights_fd", 57, True, "sock"))
            s(["4b.frozen_after_sigkill"], 12,
              lambda: self.writer("4b.frozen_after_sigkill", "sigkill", True, "sock"))
            s(["4c.frozen_with_fds_parked", "4c.frozen_after_judge_closes"], 12,
              lambda: self.writer("4c.frozen_with_fds_parked", "sigkill", True, "sock",
                                  closed_name="4c.frozen_after_judge_closes"))
            s(["5b.legacy_ipc_bwrap"], 6, lambda: self.legacy("5b.legacy_ipc_bwrap", True))
        else:
            for name in ("4a.bwrap_inherited_fd", "4b.bwrap_scm_rights_fd",
                         "4b.frozen_after_sigkill", "4c.frozen_with_fds_parked",
                         "5b.legacy_ipc_bwrap"):
                self.report.add(name, "skip", "", "no working bwrap (4.bwrap)")
        s(["6b.arena_create_map_s"], 14, self.timings)
        # last: the least needed when time runs short (the SIGKILL cases above are the property)
        s(["3c.frozen_after_exit_nosync"], 12,
          lambda: self.writer("3c.frozen_after_exit_nosync", "exit", False, "fd"))


def layout_findings(layout: dict[str, tuple[type[ctypes.Structure], int, dict[str, int]]]
                    = LAYOUT) -> list[tuple[str, bool, int, str]]:
    """Each struct's ctypes size and field offsets against the header's C layout."""
    found = []
    for name, (struct, size, offsets) in layout.items():
        got = {f: getattr(struct, f).offset for f in offsets}
        ok = ctypes.sizeof(struct) == size and got == offsets
        found.append((name, ok, ctypes.sizeof(struct),
                      " ".join(f"{f}@{o}" for f, o in got.items())
                      + ("" if ok else f" (header: size {size}, {offsets})")))
    return found


def dry(report: Report) -> int:
    """No CUDA: the ctypes tables build, the layouts match the header, the plan."""
    bad = 0
    for name, ok, size, note in layout_findings():
        report.add(f"0.layout.{name}", "yes" if ok else "no", size, note)
        bad += not ok
    for name, argtypes in SIGNATURES.items():
        try:  # the prototype ctypes would call through (a by-value struct included)
            ctypes.CFUNCTYPE(CUresult, *argtypes)
        except TypeError as exc:
            report.add("0.signatures", "no", name, f"{type(exc).__name__}: {exc}")
            bad += 1
    report.add("0.signatures", "yes" if not bad else "no", len(SIGNATURES),
               "ctypes argument tables built (nothing loaded)")
    report.add("0.constants", "yes", len(CONSTANTS),
               " ".join(f"{k}={v}" for k, v in sorted(CONSTANTS.items())))
    for step, what in PLAN:
        report.add(step, "plan", "", what)
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry", action="store_true", help="no CUDA: tables and the plan")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(json.loads(args.worker))
    out = os.environ.get("OUT")
    path = None
    if out:
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, "vmm_probe.tsv")
    report = Report(path)
    if args.dry:
        return dry(report)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # finally blocks reap the workers
    big = int(float(os.environ.get("VMM_BIG_GB", "6.4")) * 1e9)
    judge = Judge(report, float(os.environ.get("VMM_BUDGET_S", "80")), big)
    try:
        judge.run()
    except Exception as exc:
        report.add("run", "no", "", f"{type(exc).__name__}: {exc}")
    report.add("total_s", "info", f"{time.monotonic() - judge.started:.1f}", "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
