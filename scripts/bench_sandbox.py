"""Per-job overhead of each sandbox backend, against a bare subprocess.

For every usable backend it runs, N times each, `python -c <print a timestamp>` and
`python -c "import torch"` (the worker's first real step) inside the sandbox, and reports
medians of:
  start → ready   from `Sandbox.run()` being called to the worker's first Python statement
  exit → return   from the worker's last statement to `run()` returning (kill, copy-out,
                  container removal: the teardown)
  total           the whole `run()` call
The `bare` row is a plain subprocess.run of the same command: the difference is the sandbox's
cost per job. Usage: python scripts/bench_sandbox.py [--repeat N] [--backends docker,bwrap]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kgb.sandbox import Limits, SandboxRequest, available_backends, create_sandbox

KGB_ROOT = Path(__file__).resolve().parents[1] / "kgb"
STAMP = "import time; print('ready', time.time())"
TORCH = ("import time; print('ready', time.time()); import torch; "
         "print('torch', time.time())")
END = "; print('exit', time.time())"


def _stamps(stdout: str) -> dict[str, float]:
    out = {}
    for line in stdout.splitlines():
        key, _, value = line.partition(" ")
        try:
            out[key] = float(value)
        except ValueError:
            pass
    return out


def _request(code: str, base: Path) -> SandboxRequest:
    import site

    out = Path(tempfile.mkdtemp(dir=base))
    tmp = Path(tempfile.mkdtemp(prefix="kgb-bench-tmp-"))
    out.chmod(0o755)
    ro = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), KGB_ROOT}
    ro |= {Path(p).resolve() for p in site.getsitepackages()}
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp),
           "TMPDIR": str(tmp), "LANG": "C.UTF-8"}
    return SandboxRequest(argv=(sys.executable, "-c", code + END), out_dir=out,
                          ro_paths=tuple(sorted(ro)), env=tuple(env.items()), tmp_dir=tmp,
                          label="bench/overhead", cwd=out)


def measure(backend: str, code: str, repeat: int, base: Path) -> dict[str, float]:
    totals, readies, teardowns = [], [], []
    sandbox = None if backend == "bare" else create_sandbox(backend)
    try:
        for _ in range(repeat):
            request = _request(code, base)
            start = time.time()
            if sandbox is None:
                proc = subprocess.run(list(request.argv), env=dict(request.env),
                                      capture_output=True, text=True, cwd=request.cwd)
                stdout, ok = proc.stdout, proc.returncode == 0
            else:
                result = sandbox.run(request, Limits(wall_time_s=120))
                stdout, ok = result.stdout, result.returncode == 0
            end = time.time()
            shutil.rmtree(request.tmp_dir, ignore_errors=True)
            stamps = _stamps(stdout)
            if not ok or "ready" not in stamps or "exit" not in stamps:
                raise RuntimeError(f"{backend}: the worker failed: {stdout[-300:]}")
            totals.append(end - start)
            readies.append(stamps["ready"] - start)
            teardowns.append(end - stamps["exit"])
    finally:
        if sandbox is not None:
            sandbox.close()
    return {"total": statistics.median(totals), "ready": statistics.median(readies),
            "teardown": statistics.median(teardowns)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--backends", default=None, help="comma-separated; default: all usable")
    args = parser.parse_args()
    usable = [n for n, why in available_backends().items() if why is None]
    backends = ["bare"] + (args.backends.split(",") if args.backends else usable)
    base = Path(tempfile.mkdtemp(prefix="kgb-bench-"))
    base.chmod(0o755)
    rows = []
    try:
        for backend in backends:
            # unmeasured runs first: the docker image is built/looked up, caches warm
            measure(backend, STAMP, 1, base)
            measure(backend, TORCH, 1, base)
            quick = measure(backend, STAMP, args.repeat, base)
            heavy = measure(backend, TORCH, max(3, args.repeat // 2), base)
            rows.append((backend, quick, heavy))
            print(f"measured {backend}", file=sys.stderr)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    bare_q, bare_h = rows[0][1], rows[0][2]
    print(f"{'backend':8} | {'start→ready':>11} | {'exit→return':>11} | "
          f"{'python -c pass':>14} | {'+overhead':>9} | {'import torch':>12} | {'+overhead':>9}")
    print("-" * 92)
    for name, quick, heavy in rows:
        print(f"{name:8} | {quick['ready'] * 1e3:9.0f}ms | {quick['teardown'] * 1e3:9.0f}ms | "
              f"{quick['total'] * 1e3:12.0f}ms | {(quick['total'] - bare_q['total']) * 1e3:7.0f}ms"
              f" | {heavy['total'] * 1e3:10.0f}ms | "
              f"{(heavy['total'] - bare_h['total']) * 1e3:7.0f}ms")
    print(f"(medians of {args.repeat} runs; import torch: {max(3, args.repeat // 2)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
