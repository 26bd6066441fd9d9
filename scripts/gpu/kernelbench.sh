#!/usr/bin/env bash
# kgb and KernelBench's evaluator side by side on the lent GPU (docs/performance.md). Run
# `KERNELBENCH=<KernelBench checkout> scripts/gpu/prepare.sh` on the dev machine first; carry
# .whl and .device. About 4 minutes on an H100. Results in $OUT. KGB_ARGS go to kgb verify
# (the 1.6 G-element softmax needs --limit=output=48g: six case calls of 6.4 GB each, one timed
# output re-checked); SIDE_ARGS to side_by_side.py (e.g. --only TASK).
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
[ -d .device/kernelbench/kernelbench ] || { echo "no .device/kernelbench: see prepare.sh"; exit 2; }
$PY -m pip install -q --no-index --no-compile --no-cache-dir --target /tmp/kbsite \
  .whl/kernelbench/*.whl >/dev/null 2>&1 || { echo "KernelBench's wheels did not install"; exit 2; }
kgb_args=(); for a in ${KGB_ARGS:-}; do kgb_args+=("--kgb-arg=$a"); done
KB_SITE=/tmp/kbsite timeout "${LIMIT_S:-560}" $PY scripts/kernelbench/side_by_side.py \
  --kernelbench .device/kernelbench --out "${SIDE_OUT:-/tmp/side-by-side}" --sandbox bwrap \
  "${kgb_args[@]}" ${SIDE_ARGS:-} > "$OUT/side-by-side.txt" 2>&1
echo "rc=$?" >> "$OUT/side-by-side.txt"
cp "${SIDE_OUT:-/tmp/side-by-side}/side_by_side.json" "$OUT/" 2>/dev/null
tail -8 "$OUT/side-by-side.txt"
