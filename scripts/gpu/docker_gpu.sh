#!/usr/bin/env bash
# Issue 29: the docker backend on the lent GPU machine, which has no Docker engine and no NVIDIA
# container toolkit. Brings Debian's engine (DOCKER=1 scripts/gpu/prepare.sh made
# .device/dockerkit.tar.xz and the docker SDK wheel), starts dockerd without networking, and runs
#   STEP=check : `kgb sandbox check --backend docker --device cuda:0` (and bwrap's, for reference)
#   STEP=verify: examples/honest through docker and through bwrap on this GPU, timed (ONLY=ids
#                narrows it, ONLY_DOCKER/ONLY_BWRAP per backend; BACKENDS picks them)
# Carry: [".whl", ".device"]. Results in $OUT.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/gpu.txt"
$PY -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a "$OUT/gpu.txt"

kit=/tmp/dockerkit
[ -d $kit ] || tar -xJf .device/dockerkit.tar.xz -C /tmp
[ -f .device/dockerkit-libs.tar ] && tar -xf .device/dockerkit-libs.tar -C /tmp  # libs added later
# The kit's libraries only where this system lacks them (never a second libc of another build).
mkdir -p $kit/need
have=$(ldconfig -p | awk 'NR > 1 {print $1}')
for lib in $kit/lib/*; do grep -qx "$(basename "$lib")" <<< "$have" || cp "$lib" $kit/need/; done
echo "libraries the kit supplies: $(ls $kit/need | tr '\n' ' ')" | tee -a "$OUT/gpu.txt"
export PATH=$kit/bin:$PATH
if ! [ -S /var/run/docker.sock ]; then
  LD_LIBRARY_PATH=$kit/need:${LD_LIBRARY_PATH:-} setsid dockerd --iptables=false --ip6tables=false \
    --bridge=none --data-root /tmp/docker-data --exec-root /tmp/docker-exec \
    > "$OUT/dockerd.log" 2>&1 < /dev/null &
  for _ in $(seq 60); do [ -S /var/run/docker.sock ] && $PY -c "import docker; docker.from_env().ping()" 2>/dev/null && break; sleep 1; done
fi
$PY -c "import docker; c = docker.from_env(); v = c.version(); i = c.info(); print('docker engine', v['Version'], 'runtimes', sorted(i.get('Runtimes', {})), 'cgroup', i.get('CgroupVersion'), 'storage', i.get('Driver'))" 2>&1 | tee -a "$OUT/gpu.txt"

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
      --sandbox $backend --baselines eager $only --out /tmp/v-$backend --force \
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
