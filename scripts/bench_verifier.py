"""kgb.Verifier's throughput with warm slots off and on (issue 24/25): a benchmark that prints
figures, not a timed test.

    .venv/bin/python scripts/bench_verifier.py [--requests 6] [--sequential 3]
        [--slots 1,2] [--warm off,on] [--sandbox bwrap] [--device cpu]

For each (slots, warm) it opens a Verifier on the relu task (one shape: the trimmed suite the
tests use) and measures
- a batch: `verify_many` of N honest relu kernels at once -> requests per minute, and each
  request's latency from submission to answer (queueing included);
- one at a time: `--sequential` requests, each after the previous answered and a pause that lets
  a warm slot's spare child finish its imports (an RL loop's idle slot) -> per-request latency.
Every answer must be `passed`; the load average is printed beside the figures (the machine may
be shared)."""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

import kgb
from kgb.suite.corpus import trimmed_suite

ROOT = Path(__file__).resolve().parent.parent
RELU = (ROOT / "tasks/Activation/relu/solution.py").read_text()


async def measure(suite: Path, slots: int, warm: str, args: argparse.Namespace) -> dict:
    opened = time.monotonic()
    async with kgb.Verifier(slots=slots, tasks=suite, device=args.device,
                            sandbox=args.sandbox, warm=warm) as verifier:
        open_s = time.monotonic() - opened
        await asyncio.sleep(args.pause)  # a warm slot's spare is ready before the first

        async def timed() -> float:
            began = time.monotonic()
            result = await verifier.verify("activation.relu", RELU)
            if not result.passed:
                raise SystemExit(f"not passed: {result.verdict} {result.message}")
            return time.monotonic() - began

        began = time.monotonic()
        batch = await asyncio.gather(*(timed() for _ in range(args.requests)))
        batch_s = time.monotonic() - began
        single = []
        for _ in range(args.sequential):
            await asyncio.sleep(args.pause)
            single.append(await timed())
    return {"open_s": open_s, "batch_s": batch_s, "per_min": 60 * args.requests / batch_s,
            "batch_latency": statistics.median(batch), "single": single}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=6)
    parser.add_argument("--sequential", type=int, default=3)
    parser.add_argument("--slots", default="1,2")
    parser.add_argument("--warm", default="off,on")
    parser.add_argument("--sandbox", default="bwrap")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--pause", type=float, default=5.0)
    args = parser.parse_args()
    print(f"kgb {kgb.__version__}; "
          f"{os.cpu_count()} CPUs; device {args.device}; sandbox {args.sandbox}; "
          f"{args.requests} requests per batch, {args.sequential} one at a time "
          f"(after {args.pause:g} s idle)", flush=True)
    header = ("slots", "warm", "req/min", "batch s", "batch median latency s",
              "one-at-a-time latency s (each)", "load avg")
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header), flush=True)
    with tempfile.TemporaryDirectory(prefix="kgb-bench-verifier-") as folder:
        suite = trimmed_suite(Path(folder) / "suite", ["activation.relu"], shapes=1)
        for slots in (int(s) for s in args.slots.split(",")):
            for warm in args.warm.split(","):
                row = asyncio.run(measure(suite, slots, warm, args))
                print(f"| {slots} | {warm} | {row['per_min']:.2f} | {row['batch_s']:.1f} | "
                      f"{row['batch_latency']:.1f} | "
                      f"{', '.join(f'{s:.1f}' for s in row['single'])} | "
                      f"{os.getloadavg()[0]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
