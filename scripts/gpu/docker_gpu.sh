#!/usr/bin/env bash
# Issue 29: the docker backend on the lent GPU machine, which has no Docker engine and no NVIDIA
# container toolkit. Brings Debian's engine (DOCKER=1 scripts/gpu/prepare.sh made
# .device/dockerkit.tar.xz and the docker SDK wheel), starts dockerd without networking, and runs
#   STEP=check : `kgb sandbox check --backend docker --device cuda:0` (and bwrap's, for reference)
#   STEP=verify: examples/honest through docker and through bwrap on this GPU, timed (ONLY=ids
#                narrows it, ONLY_DOCKER/ONLY_BWRAP per backend; BACKENDS picks them; KGB_ARGS
#                adds options to both, e.g. a shared --baseline-cache DIR kept between calls)
# Carry: [".whl", ".device"]. Results in $OUT.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/gpu.txt"
$PY -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a "$OUT/gpu.txt"

source "$(dirname "$0")/docker_engine.sh"

case "${STEP:-check}" in
check)
  start=$(date +%s)
  timeout 420 $PY -m kgb.cli sandbox check --backend docker --device cuda:0 --stdout-gb 1 \
    > "$OUT/check-docker.txt" 2>&1
  echo "docker check: rc=$? in $(( $(date +%s) - start )) s" | tee -a "$OUT/check-docker.txt"
  start=$(date +%s)
  timeout 150 $PY -m kgb.cli sandbox check --backend bwrap --device cuda:0 --stdout-gb 1 \
    --only gpu_isolated,gpu_usable > "$OUT/check-bwrap.txt" 2>&1
  echo "bwrap gpu check: rc=$? in $(( $(date +%s) - start )) s" | tee -a "$OUT/check-bwrap.txt"
  cat "$OUT/check-docker.txt" | tail -30
  ;;
verify)
  for backend in ${BACKENDS:-docker bwrap}; do
    start=$(date +%s)
    var=ONLY_${backend^^}; only=${!var:-$ONLY}; only=${only:+--only $only}
    timeout "${PER_BACKEND_S:-270}" $PY -m kgb.cli verify examples/honest --device cuda \
      --sandbox $backend --baselines eager $only ${KGB_ARGS:-} --out /tmp/v-$backend --force \
      > "$OUT/verify-$backend.txt" 2>&1
    echo "$backend: rc=$? in $(( $(date +%s) - start )) s" | tee -a "$OUT/verify-$backend.txt"
    cp /tmp/v-$backend/report.json "$OUT/report-$backend.json" 2>/dev/null
  done
  $PY - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
rows = {}
for backend in ("docker", "bwrap"):
    try:
        report = json.load(open(f"{out}/report-{backend}.json"))
    except OSError:
        continue
    for job in report["jobs"]:
        if job["verdict"] != "missing":
            rows.setdefault(job["task"], {})[backend] = (job["verdict"], job.get("speedup_eager"),
                                                         job.get("worker_wall_s"))
print(f"{'task':34} {'docker':>28} {'bwrap':>28}")
for task, by in rows.items():
    cell = lambda b: "%s %s %s" % (by.get(b, ("-", None, None))[0],
                                   *("%.2fx" % v if v else "-" for v in by.get(b, (0, None, None))[1:2]),
                                   "%.1fs" % by[b][2] if b in by and by[b][2] else "-")
    print(f"{task:34} {cell('docker'):>28} {cell('bwrap'):>28}")
PY
  ;;
esac
