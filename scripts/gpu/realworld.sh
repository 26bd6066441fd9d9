#!/usr/bin/env bash
# The real-world kernels (docs/realworld.md) on the lent GPU: build them here first
# (scripts/realworld/build.py), carry .realworld/submissions with .whl and .device. Correctness
# only (--timing off), JOBS per GPU (default 4); SUBS names submissions (default: all). fla's
# kernels autotune over many configs on a GPU: give them a call of their own (SUBS=fla).
# ONLY=id,id runs those tasks only (a stopped run's rest). DEVICES=all spreads the jobs over
# every GPU of the machine (JOBS on each). TIMED=1 times them too, one job at a time (about 35 s
# a job). Results in $OUT: the log, the table, and every submission's report.json (or, for a run
# LIMIT_S stopped, its finished jobs' verdict.json) in one tar.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
[ -d .realworld/submissions ] || { echo "no .realworld/submissions: see scripts/realworld/build.py"; exit 2; }
extra="--sandbox bwrap --timing off --jobs ${JOBS:-4}"
[ -n "${TIMED:-}" ] && extra="--sandbox bwrap --baselines eager"
[ -n "${ONLY:-}" ] && extra="$extra --only $ONLY"  # some tasks only, e.g. a stopped run's rest
[ -n "${DEVICES:-}" ] && extra="$extra --devices $DEVICES"  # e.g. all: JOBS per GPU on each
start=$(date +%s)
KGB="$PY -m kgb.cli" KGB_EXTRA="$extra" timeout "${LIMIT_S:-540}" \
  bash scripts/realworld/verify_all.sh cuda "" ${SUBS:-} > "$OUT/realworld.txt" 2>&1
echo "rc=$? after $(( $(date +%s) - start )) s" >> "$OUT/realworld.txt"
$PY scripts/realworld/summarize.py > "$OUT/realworld-table.md" 2>&1
[ -n "${TIMED:-}" ] && $PY scripts/realworld/margins.py > "$OUT/realworld-margins.md" 2>&1
# a run stopped by LIMIT_S has no report.json: its finished jobs' verdict.json come back too
tar -cf "$OUT/realworld-reports.tar" .realworld/out/*/report.json \
  .realworld/out/*/jobs/*/verdict.json .realworld/out-*.log 2>/dev/null
[ -n "${TIMED:-}" ] && tar -rf "$OUT/realworld-reports.tar" \
  .realworld/out/*/jobs/*/{exec,judge}.json 2>/dev/null  # the timing evidence (marks, loop cost)
cat "$OUT/realworld.txt"; tail -30 "$OUT/realworld-table.md"
