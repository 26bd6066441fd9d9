#!/usr/bin/env bash
# A real-world submission's tasks with each task's cases split by dtype, one job per dtype (a
# copy of the suite whose task.toml lists that dtype only): every case still runs, in jobs a
# third as long. For fla's heavily autotuned kernels, whose one job (30 configs x 6 shapes x 3
# dtypes) outlasts a 10-minute device call (docs/realworld.md). Build the submissions first
# (scripts/realworld/build.py); carry .realworld/submissions with .whl.
#   SUB (default fla), IDS (task ids, comma-separated), DTYPES (default all three), LIMIT_S.
#   TIMED=1: timing on (eager baselines), one job per GPU, the dtypes one after another (timed
#   jobs must not share a GPU); DEVS="--devices all" on a multi-GPU machine.
# Results in $OUT: split-<dtype>.log and split-reports.tar (report, verdicts, exec and judge
# records: compile time, the timing evidence).
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
SUB=${SUB:-fla}
IDS=${IDS:-activation.silu_and_mul_backward,fusion.swiglu_backward,activation.logsigmoid}
DTYPES=${DTYPES:-float32 float16 bfloat16}
end=$(( $(date +%s) + ${LIMIT_S:-560} ))  # one deadline for every dtype
pids=()
for d in $DTYPES; do
  rm -rf "/tmp/tasks-$d" && cp -r tasks "/tmp/tasks-$d"
  for id in ${IDS//,/ }; do
    f=$(grep -l "^id = \"$id\"" /tmp/tasks-$d/*/*/task.toml)
    sed -i "s/^dtypes = .*/dtypes = [\"$d\"]/" "$f"
  done
  mode="--timing off --jobs ${JOBS:-3}"; [ -n "${TIMED:-}" ] && mode="--baselines eager"
  left=$(( end - $(date +%s) )); [ $left -lt 30 ] && { echo "no time left for $d"; break; }
  timeout $left $PY -m kgb.cli verify ".realworld/submissions/$SUB" --tasks "/tmp/tasks-$d" \
    --only "$IDS" --device cuda --sandbox bwrap $mode ${DEVS:-} \
    --out "/tmp/out-$d" --force > "$OUT/split-$d.log" 2>&1 &
  pids+=($!)
  [ -n "${TIMED:-}" ] && wait $!
done
wait "${pids[@]}"
for d in $DTYPES; do
  echo "== $d"; tail -8 "$OUT/split-$d.log" 2>/dev/null
  for j in /tmp/out-$d/jobs/*/exec.json; do
    [ -f "$j" ] && echo "$(dirname "$j" | xargs basename): $(grep -oE '"(compile_s|worker_s)": [0-9.]+' "$j" | tr '\n' ' ')"
  done
done
tar -cf "$OUT/split-reports.tar" /tmp/out-*/report.json /tmp/out-*/jobs/*/verdict.json \
  /tmp/out-*/jobs/*/exec.json /tmp/out-*/jobs/*/judge.json 2>/dev/null
