"""Encoded outputs (kgb/encoding.py, issue 24): the bytes and seconds one standard case's five
calls cost to save and to load, written whole (as before session 32) and encoded, for a
float32 output of about --gb GiB. A benchmark, not a test: it prints a table.

The calls' outputs are what an honest deterministic kernel returns: the primary's answer, a
fresh input's (everything differs), the same values again (same bits), one element of the
input halved (one row moves, as in a row-wise softmax), and a ghost call's poisoned buffer
(0xFF bytes). Each is saved with the worker's own `save_outputs` and read back with the
judge's `load_outputs` (decoding included, every byte read), in a temporary folder (`--dir`,
default a tmpfs: /dev/shm).

Usage: python scripts/bench_output_encoding.py [--gb 0.5] [--dir /dev/shm] [--device cpu|cuda]"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from kgb.judge.judge import load_outputs
from kgb.worker.outputs import save_outputs, saved_copy


def _outputs(rows: int, cols: int, device: str) -> dict[str, torch.Tensor]:
    primary = torch.softmax(torch.randn(rows, cols, device=device), dim=1)
    nudged = primary.clone()
    nudged[rows // 2] = torch.softmax(torch.randn(cols, device=device), dim=0)
    ghost = torch.empty_like(primary)
    ghost.view(torch.int32).fill_(-1)
    return {"primary": primary, "fresh": torch.softmax(torch.randn_like(primary), dim=1),
            "same_values": primary.clone(), "near_equal": nudged, "ghost": ghost}


def _timed(fn) -> float:
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=0.5)
    parser.add_argument("--dir", default="/dev/shm")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    cols = 16384
    rows = max(2, int(args.gb * (1 << 30) / 4 / cols))
    calls = _outputs(rows, cols, args.device)
    print(f"one output: {rows} x {cols} float32 = {rows * cols * 4 / 2**30:.2f} GiB, "
          f"device {args.device}, folder {args.dir}")
    print("| call | whole: MB, save s, load s | encoded: MB, save s, load s |")
    print("|---|---|---|")
    totals = {"whole": [0.0, 0.0, 0.0], "encoded": [0.0, 0.0, 0.0]}
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        out = Path(folder)
        base = saved_copy((calls["primary"],))
        judged_primary: list | None = None
        for name, tensor in calls.items():
            row = [name]
            for mode in ("whole", "encoded"):
                against = base if mode == "encoded" and name in ("same_values", "near_equal") \
                    else None
                mb, save_s, load_s, loaded = _one(out, f"{mode}_{name}.safetensors", tensor,
                                                  mode, against, judged_primary, args.device)
                if name == "primary" and mode == "encoded":
                    judged_primary = loaded
                for i, figure in enumerate((mb, save_s, load_s)):
                    totals[mode][i] += figure
                row.append(f"{mb:,.1f}, {save_s:.2f}, {load_s:.2f}")
            print(f"| {' | '.join(row)} |")
        whole, encoded = totals["whole"], totals["encoded"]
        print(f"| **case** | {whole[0]:,.1f}, {whole[1]:.2f}, {whole[2]:.2f} "
              f"| {encoded[0]:,.1f}, {encoded[1]:.2f}, {encoded[2]:.2f} |")


def _one(out: Path, name: str, tensor: torch.Tensor, mode: str, against, judged_primary,
         device: str) -> tuple[float, float, float, list]:
    """Save one call's output, read it back as the judge does: MB, seconds each, the output."""
    path = out / name
    if mode == "whole":
        save_s = _timed(lambda: _save_whole(tensor, path))
    else:
        save_s = _timed(lambda: save_outputs((tensor,), path, against,
                                             fill="ghost" in name))
    loaded: list = []

    def load() -> None:  # and read every byte, as the judge's comparison does (on the CPU
        # safetensors maps the file: a whole file's pages are read only when touched)
        loaded.extend(load_outputs(out, name, device, 1 << 40, (),
                                   judged_primary if against is not None else None))
        loaded[0].view(torch.int32).sum()

    load_s = _timed(load)
    assert torch.equal(loaded[0].view(torch.int32), tensor.view(torch.int32))
    mb = path.stat().st_size / 1e6
    path.unlink()
    return mb, save_s, load_s, loaded

def _save_whole(tensor: torch.Tensor, path: Path) -> None:
    """As before session 32: every output whole (the encoder sees no pattern in the fill
    because none is asked for: the same streamed writer, without encoding)."""
    import kgb.worker.outputs as outputs

    keep = outputs.ENCODE_MIN_BYTES
    outputs.ENCODE_MIN_BYTES = 1 << 62
    try:
        save_outputs((tensor,), path)
    finally:
        outputs.ENCODE_MIN_BYTES = keep


if __name__ == "__main__":
    main()
