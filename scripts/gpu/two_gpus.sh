#!/usr/bin/env bash
# On a machine with 2+ GPUs: bwrap's GPU isolation for each GPU, then the honest example with
# one job per GPU (docs/gpu.md, run 4; docs/sandboxes.md).
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
nvidia-smi -L
for d in $(nvidia-smi --query-gpu=index --format=csv,noheader); do
  timeout 120 $PY -m kgb.cli sandbox check --backend bwrap --device cuda:$d --stdout-gb 1 \
    --only network,devices_minimal,gpu_isolated,gpu_usable; echo "check cuda:$d rc=$?"
done
start=$(date +%s)
timeout 420 $PY -m kgb.cli verify examples/honest --device cuda --devices all --sandbox bwrap \
  --out /tmp/h2 > "$OUT/devices-all.txt" 2>&1
echo "rc=$? in $(( $(date +%s) - start )) s" >> "$OUT/devices-all.txt"; tail -25 "$OUT/devices-all.txt"
