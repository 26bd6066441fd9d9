#!/usr/bin/env bash
# Issue 24 on the lent GPU: several timed jobs per GPU under the timing lock
# (kgb/runner/gpu_share.py, docs/timing.md "Several jobs per GPU"). The same kernels (ONLY,
# default 8 of examples/honest) are verified with --jobs 1 and --jobs $JOBS (default 3) on one
# GPU, ROUNDS times alternating; per kernel the median time_ms both ways (must agree within 2 %),
# the wall time and kernels per GPU-hour both ways, and for the shared runs the lock's windows,
# the frozen seconds and any "timing lock" reason that cost a speedup. A run the call's limit
# cut still counts its finished kernels (the partial report); KGB_ARGS go to every run (e.g. a
# shared --baseline-cache DIR).
# Carry: [".whl", ".device"]. Results in $OUT (timing-lock.txt, the report.json files).
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/gpu.txt"
$PY -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a "$OUT/gpu.txt"
only=${ONLY:-activation.gelu_tanh,math.addcmul,normalization.rms_norm,normalization.softmax,reduce.sum_rows,matmul.matmul,loss.cross_entropy,index.embedding}
jobs=${JOBS:-3}
for round in $(seq ${ROUNDS:-1}); do
  for n in 1 $jobs; do
    start=$(date +%s.%N)
    timeout "${PER_RUN_S:-270}" $PY -m kgb.cli verify examples/honest --device cuda \
      --sandbox "${SANDBOX:-bwrap}" --baselines "${BASELINES:-eager}" --jobs $n --only $only \
      ${KGB_ARGS:-} --out /tmp/lock-$n-$round --force > "$OUT/lock-$n-$round.txt" 2>&1
    rc=$?
    end=$(date +%s.%N)
    wall=$($PY -c "print(round($end - $start, 1))")  # no bc on the lent machine
    echo "jobs $n round $round: rc=$rc wall $wall s" | tee -a "$OUT/timing-lock.txt"
    echo "$wall" > /tmp/lock-$n-$round/wall_s
    cp /tmp/lock-$n-$round/report.json "$OUT/lock-$n-$round.json" 2>/dev/null
    cp /tmp/lock-$n-$round/timing_lock.json "$OUT/lock-$n-$round-share.json" 2>/dev/null
  done
done
$PY - "$jobs" /tmp/lock-*-* <<'PY' | tee -a "$OUT/timing-lock.txt"
import json, re, statistics, sys
from pathlib import Path
jobs = sys.argv[1]
times, walls, kernels, windows, frozen, reasons = {}, {}, {}, {}, {}, {}
for folder in map(Path, sys.argv[2:]):
    n = re.match(r"lock-(\d+)-\d+$", folder.name).group(1)
    report = folder / "report.json"
    if not report.exists():
        continue
    walls.setdefault(n, []).append(float((folder / "wall_s").read_text()))
    entries = [j for j in json.loads(report.read_text())["jobs"] if j["verdict"] != "missing"]
    kernels.setdefault(n, []).append(len(entries))
    for job in entries:
        if job["verdict"] == "passed" and job.get("time_ms"):
            times.setdefault(job["task"], {}).setdefault(n, []).append(float(job["time_ms"]))
        for why in job.get("speed_unchecked") or ():
            if "timing lock" in why or "drain" in why or "revoked" in why:
                reasons.setdefault(n, []).append(f'{job["task"]}: {why}')
    for exec_json in folder.glob("jobs/*/exec.json"):
        record = json.loads(exec_json.read_text())
        windows.setdefault(n, []).extend(record.get("windows") or ())
        frozen.setdefault(n, []).append(record.get("frozen_s") or 0.0)
worst = 0.0
print(f"{'task':32} {'jobs 1 ms':>10} {'jobs ' + jobs + ' ms':>11} {'ratio':>7}")
for task, by in sorted(times.items()):
    if "1" not in by or jobs not in by:
        print(f"{task:32} (timed one way only: {sorted(by)})")
        continue
    one, many = statistics.median(by["1"]), statistics.median(by[jobs])
    worst = max(worst, abs(many / one - 1))
    print(f"{task:32} {one:10.4f} {many:11.4f} {many / one:7.3f}")
print(f"largest deviation {worst:.1%} (must be <= 2 %)")
for n in sorted(walls, key=int):
    wall, count = statistics.median(walls[n]), statistics.median(kernels[n])
    print(f"--jobs {n}: wall {wall:.1f} s for {count:.0f} kernels: "
          f"{3600 * count / wall:.0f} kernels/GPU-hour")
    if n != "1":
        w = windows.get(n, [])
        print(f"  lock windows {len(w)}, exclusive {sum(1 for x in w if x['exclusive'])}, revoked "
              f"{sum(1 for x in w if x['revoked'])}; frozen s per job median "
              f"{statistics.median(frozen.get(n) or [0]):.2f}")
        for share in sorted(Path(f"/tmp").glob(f"lock-{n}-*/timing_lock.json")):
            print(f"  {share.parent.name} host-side lock:", share.read_text().strip())
        for why in reasons.get(n, [])[:10]:
            print("  no speedup:", why)
sys.exit(1 if worst > 0.02 else 0)
PY
