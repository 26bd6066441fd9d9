"""What the profiled call of a timed case costs (issue 24; docs/performance.md, "Where a timed
job's anti-cheat seconds go"). kgb runs one repeat call of every timeable case under
torch.profiler (CUDA activity: the kernel names D306 compares with the timed window's), and the
throughput bench's timed jobs spent a median 6.5 s in their layer-2/3 calls against 0.26 s with
--timing off. This prints, in fresh processes, the seconds of `kgb.bench.profiler.profile_call`
around one small Triton kernel: the first session of a process and the next ones, with and
without one profiler session run before (a warm-up the worker could do before the candidate is
imported), and the same call unprofiled. A benchmark that prints figures, not a test.

Usage (the lent GPU, after scripts/gpu/env.sh): python scripts/gpu/profile_cost.py [--repeats 5]
With --calls-of OUT: also each kgb job's calls under OUT/jobs (kind, wall seconds, profiled or
not), from the workers' result.json."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import sys, time, json
sys.path.insert(0, %(root)r)
t0 = time.perf_counter()
import torch, triton, triton.language as tl
from kgb.bench.profiler import profile_call
imports = time.perf_counter() - t0

@triton.jit
def _add(x, y, o, n, B: tl.constexpr):
    i = tl.program_id(0) * B + tl.arange(0, B)
    m = i < n
    tl.store(o + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)

warm = cuda_after_warmup = None
if %(warm)r == "before-context":  # a profiler session with nothing on the GPU yet (held slot)
    t0 = time.perf_counter()
    profile_call(lambda: None, lambda: None)
    warm = time.perf_counter() - t0
    cuda_after_warmup = torch.cuda.is_initialized()
t0 = time.perf_counter()
x = torch.randn(1 << 20, device="cuda"); y = torch.randn_like(x); o = torch.empty_like(x)
torch.cuda.synchronize()
context = time.perf_counter() - t0
run = lambda: _add[(triton.cdiv(x.numel(), 1024),)](x, y, o, x.numel(), B=1024)
t0 = time.perf_counter(); run(); torch.cuda.synchronize(); compile_s = time.perf_counter() - t0
if %(warm)r == "after-context":
    t0 = time.perf_counter()
    profile_call(lambda: torch.zeros(8, device="cuda").add_(1), torch.cuda.synchronize)
    warm = time.perf_counter() - t0
plain = []
for _ in range(3):
    t0 = time.perf_counter(); run(); torch.cuda.synchronize()
    plain.append(time.perf_counter() - t0)
sessions = []
for _ in range(%(repeats)d):
    t0 = time.perf_counter()
    got = profile_call(run, torch.cuda.synchronize)
    sessions.append(time.perf_counter() - t0)
print(json.dumps({"imports_s": imports, "context_s": context, "compile_s": compile_s,
                  "warmup_s": warm, "cuda_after_warmup": cuda_after_warmup, "plain_s": plain,
                  "profiled_s": sessions,
                  "kernels": sorted(got.kernels) if got else None}))
"""


def child(warm: str, repeats: int) -> dict:
    code = CHILD % {"root": str(ROOT), "warm": warm, "repeats": repeats}
    with tempfile.TemporaryDirectory() as folder:  # @triton.jit needs a file to read
        script = Path(folder) / "child.py"
        script.write_text(code)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              timeout=300)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:300]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def calls_of(out: Path) -> None:
    """Each job's calls from its worker's result.json: case, kind, wall s, profiled."""
    print("task\tcase\tcall\tkind\twall_s\tprofiled")
    for result in sorted(out.glob("jobs/**/result.json")):
        data = json.loads(result.read_text())
        task = result.relative_to(out / "jobs").parts[0]
        for case in data.get("cases") or ():
            for call in case.get("calls") or ():
                print(f"{task}\t{case.get('case_id') or case.get('id')}\t{call.get('index')}\t"
                      f"{call.get('kind')}\t{call.get('wall_s')}\t{bool(call.get('kernels'))}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--calls-of", type=Path)
    args = parser.parse_args()
    if args.calls_of:
        calls_of(args.calls_of)
        return 0
    print("warm-up\timports_s\tcontext_s\tcompile_s\twarmup_s\tplain_s\tprofiled_s\tkernels")
    for warm in ("none", "before-context", "after-context", "none", "before-context",
                 "after-context"):
        t0 = time.perf_counter()
        got = child(warm, args.repeats)
        if "error" in got:
            print(f"{warm}\terror\t{got['error']}")
            continue
        fmt = lambda v: "-" if v is None else (  # noqa: E731
            ",".join(f"{x:.3f}" for x in v) if isinstance(v, list) else f"{v:.3f}")
        print(f"{warm}\t{fmt(got['imports_s'])}\t{fmt(got['context_s'])}\t"
              f"{fmt(got['compile_s'])}\t{fmt(got['warmup_s'])}\t{fmt(got['plain_s'])}\t"
              f"{fmt(got['profiled_s'])}\t{got['kernels']}\tcuda after warm-up: "
              f"{got['cuda_after_warmup']}\t(process {time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
