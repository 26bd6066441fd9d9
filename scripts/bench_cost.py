"""Benchmark of `kgb cost`'s parser and figures on a large synthetic token log.

    .venv/bin/python scripts/bench_cost.py [--lines 1000000]

Writes a log mixing every usage shape (OpenAI Chat and Responses, Anthropic, generic; top-level
and nested usage; ISO and epoch timestamps) into a temporary folder, then times parse_log +
figures + audit (build_section, without rendering) and prints lines per second. Not a test:
timings depend on the machine; the figure goes in docs/cost.md."""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from kgb.cost import build_section
from kgb.cost.inputs import Context

REPO = Path(__file__).resolve().parent.parent


def synthetic_line(i: int, rng: random.Random, tasks: list[str]) -> dict:
    task = tasks[i % len(tasks)]
    start = 1_735_689_600 + i * 2.0
    end = start + rng.uniform(0.5, 1.9)
    base = {"task": task, "attempt": (i // len(tasks)) % 5 + 1, "request_id": f"req-{i}"}
    prompt, out = rng.randint(500, 20_000), rng.randint(50, 4_000)
    cached = rng.randint(0, prompt)
    kind = i % 4
    if kind == 0:
        usage = {"prompt_tokens": prompt, "completion_tokens": out,
                 "total_tokens": prompt + out,
                 "prompt_tokens_details": {"cached_tokens": cached},
                 "completion_tokens_details": {"reasoning_tokens": out // 2}}
        line = {**base, "model": "gpt-4o-2024-08-06", "usage": usage}
    elif kind == 1:
        line = {**base, "model": "o4-mini", "input_tokens": prompt, "output_tokens": out,
                "input_tokens_details": {"cached_tokens": cached},
                "output_tokens_details": {"reasoning_tokens": out // 3}}
    elif kind == 2:
        usage = {"input_tokens": prompt - cached, "output_tokens": out,
                 "cache_read_input_tokens": cached, "cache_creation_input_tokens": 100}
        line = {**base, "model": "claude-sonnet-4-5", "usage": usage}
    else:
        line = {**base, "model": "local-model", "usage": {"input": prompt, "output": out}}
    if i % 2:
        line["started"], line["ended"] = start, end
    else:
        iso = lambda t: datetime.fromtimestamp(t, timezone.utc).isoformat()  # noqa: E731
        line["started"], line["ended"] = iso(start), iso(end)
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    rng = random.Random(0)
    tasks = [f"category.task_{k}" for k in range(250)]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "tokens.jsonl"
        t0 = time.perf_counter()
        with log.open("w") as f:
            for i in range(args.lines):
                f.write(json.dumps(synthetic_line(i, rng, tasks)) + "\n")
        gen_s = time.perf_counter() - t0
        size_mb = log.stat().st_size / 1e6
        jobs = [{"task": t, "verdict": "passed" if k % 3 else "incorrect",
                 "speedup": 0.5 + (k % 7) * 0.25} for k, t in enumerate(tasks)]
        ctx = Context(manifest_tasks=tasks, jobs=jobs, declared={"output": 1})
        t0 = time.perf_counter()
        section = build_section(log, REPO / "examples" / "pricing.example.toml", ctx)
        took = time.perf_counter() - t0
    assert section["lines"]["used"] == args.lines, section["lines"]
    print(f"generated {args.lines:,} lines ({size_mb:.0f} MB) in {gen_s:.1f} s")
    print(f"parse + figures + audit: {took:.2f} s = {args.lines / took:,.0f} lines/s")
    print(f"total cost {section['totals']['cost']['usd']:.2f} USD "
          f"({section['totals']['cost']['status']}), {len(section['findings'])} findings")


if __name__ == "__main__":
    main()
