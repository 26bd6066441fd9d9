#!/usr/bin/env bash
# Both example submissions through bwrap on one GPU, the honest one stopped by SIGTERM after
# STOP_S seconds and resumed (docs/gpu.md, runs 3 and 5). Results land in $OUT.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
nvidia-smi -L
start=$(date +%s)
timeout -s TERM "${STOP_S:-120}" $PY -m kgb.cli verify examples/honest --device cuda \
  --sandbox bwrap --out /tmp/h > "$OUT/stopped.txt" 2>&1
echo "stopped: rc=$? after $(( $(date +%s) - start )) s" | tee -a "$OUT/stopped.txt"
ps -eo pid,args | grep -E "kgb.worker|kgb.judge|_supervisor|bwrap " | grep -v grep | tee -a "$OUT/stopped.txt"
timeout 500 $PY -m kgb.cli verify examples/honest --device cuda --sandbox bwrap --out /tmp/h \
  --resume > "$OUT/resumed.txt" 2>&1
echo "resumed: rc=$? after $(( $(date +%s) - start )) s" >> "$OUT/resumed.txt"
cp /tmp/h/report.json "$OUT/honest-report.json"; tail -25 "$OUT/resumed.txt"
timeout 200 $PY -m kgb.cli verify examples/broken --device cuda --sandbox bwrap --timeout 30 \
  --out /tmp/b > "$OUT/broken.txt" 2>&1
echo "broken: rc=$?" >> "$OUT/broken.txt"; tail -8 "$OUT/broken.txt"
