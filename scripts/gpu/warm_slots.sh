#!/usr/bin/env bash
# Issue 24 on the lent GPU: warm slots.
#   STEP=hidden: the hidden-state probes (tests/fixtures/hidden_state: a job plants files, caches,
#                a process and GPU memory; the next job on the slot, started warm, looks) through
#                BACKENDS (default: docker bwrap process; docker needs the kit, see docker_engine.sh)
#   STEP=clock : "warm must not move the clock": the same kernels (ONLY, default 8 of
#                examples/honest) timed with --warm on and --warm off on one GPU, ROUNDS times
#                alternating; per kernel the medians' ratio.
# Carry: [".whl", ".device"]. Results in $OUT.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/gpu.txt"
$PY -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a "$OUT/gpu.txt"
case "${STEP:-hidden}" in
hidden)
  case " ${BACKENDS:-docker bwrap process} " in *" docker "*) source "$(dirname "$0")/docker_engine.sh";; esac
  rm -rf /tmp/hs && $PY tests/fixtures/hidden_state/probe.py build /tmp/hs > /dev/null
  for backend in ${BACKENDS:-docker bwrap process}; do
    start=$(date +%s)
    timeout "${PER_BACKEND_S:-170}" $PY -m kgb.cli verify /tmp/hs --device cuda --sandbox $backend \
      --static off --timing off --out /tmp/hs-$backend --force > "$OUT/hidden-$backend.txt" 2>&1
    echo "$backend: rc=$? in $(( $(date +%s) - start )) s" >> "$OUT/hidden-$backend.txt"
    echo "$backend $(tail -1 "$OUT/hidden-$backend.txt") $($PY tests/fixtures/hidden_state/probe.py read /tmp/hs-$backend)" \
      | tee -a "$OUT/hidden.txt"
    grep -h "waited_for_slot" /tmp/hs-$backend/jobs/*/phases.json >> "$OUT/hidden.txt" 2>/dev/null
  done
  ;;
clock)
  only=${ONLY:-activation.gelu_tanh,math.addcmul,normalization.rms_norm,normalization.softmax,reduce.sum_rows,matmul.matmul,loss.cross_entropy,index.embedding}
  for round in $(seq ${ROUNDS:-1}); do
    for warm in on off; do
      start=$(date +%s)
      timeout "${PER_RUN_S:-270}" $PY -m kgb.cli verify examples/honest --device cuda --sandbox bwrap \
        --baselines none --warm $warm --only $only --out /tmp/clock-$warm-$round --force \
        > "$OUT/clock-$warm-$round.txt" 2>&1
      echo "warm $warm round $round: rc=$? in $(( $(date +%s) - start )) s" | tee -a "$OUT/clock.txt"
      cp /tmp/clock-$warm-$round/report.json "$OUT/clock-$warm-$round.json" 2>/dev/null
    done
  done
  $PY scripts/warm_clock.py "$OUT"/clock-*.json | tee -a "$OUT/clock.txt"
  ;;
esac
