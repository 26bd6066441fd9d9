#!/usr/bin/env bash
# Does host CPU activity move a launch-bound kernel's timed median? (issue 24, the warm-slots
# finding on reduce.sum_rows.) The same kernel (ONLY, default reduce.sum_rows) timed alone and
# beside a busy CPU process, alternating, ROUNDS times. Carry: [".whl", ".device"].
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
only=${ONLY:-reduce.sum_rows}
for round in $(seq ${ROUNDS:-2}); do
  for mode in quiet busy; do
    [ $mode = busy ] && { $PY -c "while True: pass" & burner=$!; }
    timeout 120 $PY -m kgb.cli verify examples/honest --device cuda --sandbox bwrap \
      --baselines none --only $only --out /tmp/nb-$mode-$round --force > /dev/null 2>&1
    [ $mode = busy ] && kill $burner
    $PY -c "import json,sys; r=json.load(open('/tmp/nb-$mode-$round/report.json')); print('$mode', $round, [(j['task'], j['time_ms']) for j in r['jobs'] if j['verdict']=='passed'])" | tee -a "$OUT/neighbour.txt"
  done
done
