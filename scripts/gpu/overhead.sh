#!/usr/bin/env bash
# The honest example on one GPU with every default (timing, both baselines) through bwrap, then
# kgb's own cost per job (scripts/bench_overhead.py; docs/performance.md). With timing and
# torch.compile baselines the 16 jobs take longer than one device call (10 min): run it twice
# on the same warm machine, the second time with RESUME=1 (finished jobs are kept). $OUT gets
# the run's text, report.json and report.html, and the overhead table. BASELINES=eager (no
# torch.compile baseline) fits the 16 jobs into one call.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
flag=$([ -n "${RESUME:-}" ] && echo --resume || echo --force)
start=$(date +%s)
timeout -s TERM "${LIMIT_S:-540}" $PY -m kgb.cli verify examples/honest --device cuda \
  --sandbox bwrap --baselines "${BASELINES:-all}" --out /tmp/h $flag > "$OUT/honest.txt" 2>&1
echo "rc=$? after $(( $(date +%s) - start )) s" >> "$OUT/honest.txt"; tail -22 "$OUT/honest.txt"
cp /tmp/h/report.json "$OUT/honest-report.json"; cp /tmp/h/report.html "$OUT/" 2>/dev/null
$PY scripts/bench_overhead.py /tmp/h > "$OUT/overhead.txt" 2>&1; tail -40 "$OUT/overhead.txt"
