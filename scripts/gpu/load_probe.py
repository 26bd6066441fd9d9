"""Why the judge's first whole load of a GPU-sized output took 5.45 s and the next ones ~1.5 s
(run 23's encoding bench, 6 GiB), and what a pinned-buffer reader would take instead.

Writes N files of one GIB-sized float32 output each with the worker's `save_outputs` (into
/dev/shm, as the sandbox's output tmpfs), then, in fresh processes, loads them:

- `judge`: kgb's `load_outputs(device="cuda")` (safetensors maps the file and copies the
  pageable mapping to the device), each file in turn: is the first load of a process slow?
- `pinned`: a prototype reader — pread of the data section into two pinned 64 MiB buffers,
  each copied to the device asynchronously while the other is filled — same files, same order.
- `warm`: `judge` again after one small pageable copy to the device and one big allocation:
  which start-up cost the first load pays.

Each load is checked against the value its file holds. One TSV line per load on stdout:
`mode file seconds GB/s`. Run on the GPU machine (about 60 s with the defaults):
    source scripts/gpu/env.sh; $PY scripts/gpu/load_probe.py --gib 6 --files 3
Not part of kgb: the reader here is for measuring, not for the judge."""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

CHUNK = 64 << 20


def write_files(folder: Path, gib: float, files: int) -> None:
    import torch

    from kgb.worker.outputs import save_outputs

    elements = int(gib * (1 << 30)) // 4
    for i in range(files):
        t = torch.full((elements,), float(i + 1), device="cuda")
        save_outputs((t,), folder / f"o{i}.safetensors")
        del t
        torch.cuda.empty_cache()


def pinned_read(path: Path, device: str):
    """The data section of a one-entry file, pread into pinned buffers and copied on."""
    import torch

    fd = os.open(path, os.O_RDONLY)
    try:
        n = struct.unpack("<Q", os.pread(fd, 8, 0))[0]
        header = json.loads(os.pread(fd, n, 8))
        entry = header["out0"]
        start, end = entry["data_offsets"]
        base = 8 + n
        out = torch.empty(end - start, dtype=torch.uint8, device=device)
        buffers = [torch.empty(CHUNK, dtype=torch.uint8, pin_memory=True) for _ in range(2)]
        done: list = [None, None]
        for k, lo in enumerate(range(0, end - start, CHUNK)):
            size = min(CHUNK, end - start - lo)
            slot = k % 2
            if done[slot] is not None:
                done[slot].synchronize()
            view = memoryview(buffers[slot].numpy())[:size]
            got = 0
            while got < size:
                got += os.preadv(fd, [view[got:]], base + start + lo + got)
            out[lo:lo + size].copy_(buffers[slot][:size], non_blocking=True)
            event = torch.cuda.Event()
            event.record()
            done[slot] = event
        torch.cuda.synchronize()
        return out.view(torch.float32)
    finally:
        os.close(fd)


def load_all(mode: str, folder: Path, files: int) -> None:
    import torch

    from kgb.judge.judge import load_outputs

    torch.ones(1, device="cuda").add_(1)  # the context, as a judge has it before any load
    torch.cuda.synchronize()
    if mode == "warm":
        torch.ones(1 << 20).to("cuda")  # one small pageable copy
        big = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
        del big
    for i in range(files):
        path = folder / f"o{i}.safetensors"
        began = time.perf_counter()
        if mode == "pinned":
            tensor = pinned_read(path, "cuda")
        else:
            tensor = load_outputs(folder, path.name, "cuda", 1 << 40)[0]
        torch.cuda.synchronize()
        seconds = time.perf_counter() - began
        ok = bool((tensor == float(i + 1)).all())
        gb = path.stat().st_size / 1e9
        print(f"{mode}\to{i}\t{seconds:.3f}\t{gb / seconds:.2f}\t{'ok' if ok else 'WRONG'}",
              flush=True)
        del tensor
        torch.cuda.empty_cache()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gib", type=float, default=6.0)
    parser.add_argument("--files", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=Path("/dev/shm/kgb-load-probe"))
    parser.add_argument("--load", choices=("judge", "pinned", "warm"))
    args = parser.parse_args()
    if args.load:  # one fresh process per mode
        load_all(args.load, args.dir, args.files)
        return 0
    args.dir.mkdir(parents=True, exist_ok=True)
    try:
        write_files(args.dir, args.gib, args.files)
        print("mode\tfile\tseconds\tGB/s\tcheck", flush=True)
        for mode in ("judge", "pinned", "warm", "judge"):
            subprocess.run([sys.executable, __file__, "--load", mode, "--dir", str(args.dir),
                            "--files", str(args.files)], check=False)
    finally:
        for path in args.dir.glob("*.safetensors"):
            path.unlink()
        args.dir.rmdir()
    return 0


if __name__ == "__main__":
    sys.exit(main())
