"""Warm slots must not move the clock (issue 24): per kernel, the median of its timed
`time_ms` with `--warm on` over the median with `--warm off`, from report.json files named
clock-<on|off>-<round>.json (scripts/gpu/warm_slots.sh STEP=clock). Prints one row per kernel
and the largest deviation; exits 1 if a kernel moved by more than --tolerance (2 %)."""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path


def times(paths: list[Path]) -> dict[str, dict[str, list[float]]]:
    """task -> {"on": [time_ms, ...], "off": [...]} for the jobs that passed and were timed."""
    found: dict[str, dict[str, list[float]]] = {}
    for path in paths:
        match = re.search(r"clock-(on|off)-\d+\.json$", path.name)
        if not match:
            continue
        for job in json.loads(path.read_text())["jobs"]:
            if job.get("verdict") == "passed" and job.get("time_ms"):
                found.setdefault(job["task"], {"on": [], "off": []})[match.group(1)].append(
                    float(job["time_ms"]))
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--tolerance", type=float, default=0.02)
    args = parser.parse_args(argv)
    rows = times(args.reports)
    worst = 0.0
    print(f"{'task':32} {'warm on ms':>11} {'warm off ms':>12} {'on/off':>7}")
    for task, by in sorted(rows.items()):
        if not by["on"] or not by["off"]:
            print(f"{task:32} {'(timed in one mode only)':>32}")
            continue
        on, off = statistics.median(by["on"]), statistics.median(by["off"])
        worst = max(worst, abs(on / off - 1))
        print(f"{task:32} {on:11.4f} {off:12.4f} {on / off:7.3f}")
    print(f"largest deviation {worst:.1%} (tolerance {args.tolerance:.0%})")
    return 1 if worst > args.tolerance else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
