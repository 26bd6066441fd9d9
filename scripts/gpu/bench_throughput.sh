#!/usr/bin/env bash
# scripts/bench_throughput.py on the lent GPU machine: kgb beside KernelBench's evaluator over
# the batch of scripts/kernelbench/batch (33 kernels, 9 tasks), kernels per GPU-hour for each
# (docs/performance.md, "Throughput beside KernelBench"). On the dev machine first:
#   KERNELBENCH=<KernelBench checkout or git dir> scripts/gpu/prepare.sh
# then carry .whl and .device. Every GPU of the machine is used (GPUS=N for fewer): KernelBench
# one process per kernel per GPU, kgb one `kgb verify` batch with --devices over them.
# PHASE=import,kernelbench,kgb,kgb-warm,kgb-off (any of them) runs those parts and merges them into
# $BENCH_OUT/bench_throughput.json (the parts may take separate calls on one warm machine); a
# part stopped at the call's budget goes on with RESUME=1 in the next; PHASE=report prints it.
# VARIANTS=1..4 and TASKS=id,id shrink the batch.
# KGB_ARGS go to both kgb runs (default: --limit=output=48g, for the 1.6 G-element softmax).
# JOBS_TIMED=3: three timed jobs per GPU under its timing lock (the 3x target's lever).
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
BENCH_OUT=${BENCH_OUT:-/tmp/bench-throughput}
[ -d .device/kernelbench/kernelbench ] || { echo "no .device/kernelbench: see prepare.sh"; exit 2; }
$PY -m pip install -q --no-index --no-compile --no-cache-dir --target /tmp/kbsite \
  .whl/kernelbench/*.whl >/dev/null 2>&1 || { echo "KernelBench's wheels did not install"; exit 2; }
LIMIT_S=${LIMIT_S:-570}  # the call's own limit is 600 s: parts stop ~80 s before, cleanly
args=(--out "$BENCH_OUT" --kernelbench .device/kernelbench --sandbox "${SANDBOX:-bwrap}"
      --phase "${PHASE:-all}" --variants "${VARIANTS:-4}" --jobs-off "${JOBS_OFF:-1}"
      --jobs-timed "${JOBS_TIMED:-1}" --budget-s $((LIMIT_S - 60)))
[ -n "${RESUME:-}" ] && args+=(--resume)
[ -n "${GPUS:-}" ] && args+=(--gpus "$GPUS")
[ -n "${TASKS:-}" ] && args+=(--tasks "$TASKS")
# With JOBS_TIMED > 1 no fixed cap by default: kgb shares half the memory among the jobs at
# once and runs a job whose outputs outgrow its share again alone (docs/decisions.md).
default_cap=--limit=output=48g; [ "${JOBS_TIMED:-1}" -gt 1 ] && default_cap=
for a in ${KGB_ARGS-$default_cap}; do args+=("--kgb-arg=$a"); done
KB_SITE=/tmp/kbsite timeout "$LIMIT_S" $PY scripts/bench_throughput.py "${args[@]}" \
  > "$OUT/bench-throughput.txt" 2>&1
echo "rc=$?" >> "$OUT/bench-throughput.txt"
cp "$BENCH_OUT/bench_throughput.json" "$OUT/" 2>/dev/null
mkdir -p "$OUT/logs" && cp "$BENCH_OUT"/*.log "$OUT/logs/" 2>/dev/null
for run in kgb-timed kgb-timed-warm kgb-timing-off; do  # the lock's and the judge pool's own
  [ -f "$BENCH_OUT/$run/v0/timing_lock.json" ] && cp "$BENCH_OUT/$run/v0/timing_lock.json" \
    "$OUT/logs/$run-timing_lock.json"
  [ -f "$BENCH_OUT/$run/judges.log" ] && grep "^kgb judges" "$BENCH_OUT/$run/judges.log" \
    > "$OUT/logs/$run-judges.log"
done
tail -20 "$OUT/bench-throughput.txt"
