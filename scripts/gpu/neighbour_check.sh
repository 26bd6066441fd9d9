#!/usr/bin/env bash
# The neighbour watch (docs/timing.md, kgb.bench.neighbours) on the lent GPU: a few honest timed
# jobs alone, then the same with another process hammering the GPU. Alone, every job's
# conditions must name no neighbour and no neighbours_error (the worker found among NVML's
# processes: NVML's pids are this host's); beside the hog, the hog must be named and no speedup
# counted. Results in $OUT/neighbours.txt and the two report.json files.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
ONLY=${ONLY:-activation.gelu_tanh,reduce.sum_rows,normalization.rms_norm}
show() {  # verdict, speedup and the watch's findings per job of report $1
  $PY - "$1" <<'PY'
import json, sys
for job in json.load(open(sys.argv[1]))["jobs"]:
    if job["verdict"] == "missing":
        continue
    c = job.get("conditions") or {}
    print(f'{job["task"]}: {job["verdict"]} {job["rule"] or ""} speedup_eager={job["speedup_eager"]} '
          f'neighbours={c.get("neighbours")} unattributed={c.get("unattributed")} '
          f'error={c.get("neighbours_error")} unchecked={job["speed_unchecked"]}')
PY
}
{
  echo "== alone"
  timeout 200 $PY -m kgb.cli verify examples/honest --only "$ONLY" --device cuda --sandbox bwrap \
    --baselines eager --out /tmp/alone > "$OUT/alone.txt" 2>&1; echo "rc=$?"
  show /tmp/alone/report.json
  echo "== beside a hog"
  $PY -c "
import torch, time
a = torch.randn(8192, 8192, device='cuda')
end = time.time() + 360
while time.time() < end:
    a = a @ a; a = a / a.norm()
" & hog=$!
  sleep 5
  timeout 330 $PY -m kgb.cli verify examples/honest --only "$ONLY" --device cuda --sandbox bwrap \
    --baselines eager --out /tmp/busy > "$OUT/busy.txt" 2>&1; echo "rc=$?"
  kill $hog; wait $hog 2>/dev/null
  echo "hog pid was $hog"
  show /tmp/busy/report.json
} 2>&1 | tee "$OUT/neighbours.txt"
cp /tmp/alone/report.json "$OUT/alone-report.json" 2>/dev/null
cp /tmp/busy/report.json "$OUT/busy-report.json" 2>/dev/null
