#!/usr/bin/env bash
# vLLM's and SGLang's per_token_int8 kernels (docs/realworld.md) on the lent GPU again, after the
# task's share-of-codes bound (int_mismatch, issue 26 residual 6): the real-world set
# (.realworld/, 388 MB with the packages) does not fit a call's 64 MiB carry, so the two kernel
# files go in a small git-ignored folder, .rw-min/ (a few kB), made here first:
#   scripts/gpu/realworld_int8.sh prepare       (needs .realworld/submissions: scripts/realworld/build.py)
# then on the GPU, carry [".whl", ".device", ".rw-min"]:
#   RUNS=4 scripts/gpu/realworld_int8.sh         (bwrap, --timing off, cuda)
# RUNS: runs of each submission, each with its own secret seed (the H100 miss was one case of one
# seed); SEEDS="1 2 3" reuses seeds instead. CPU analog here: DEVICE=cpu (process sandbox, this
# checkout's .venv, Triton's interpreter). Results in $OUT: the log and each run's report.json.
set -u
cd "$(dirname "$0")/../.."
MIN=.rw-min
SUBS=(vllm sglang)
TASK=quantization.per_token_int8
if [ "${1:-}" = prepare ]; then
  for sub in "${SUBS[@]}"; do
    src=.realworld/submissions/$sub
    [ -f "$src/kernels/$TASK.py" ] || { echo "no $src/kernels/$TASK.py: run scripts/realworld/build.py"; exit 2; }
    rm -rf "$MIN/$sub" && mkdir -p "$MIN/$sub/kernels"
    cp "$src/kernels/$TASK.py" "$MIN/$sub/kernels/"
    # the submission's own [submission] table, one kernel
    sed -n '1,/^\[\[kernels\]\]/p' "$src/manifest.toml" | sed '$d' > "$MIN/$sub/manifest.toml"
    printf '[[kernels]]\ntask = "%s"\nfile = "kernels/%s.py"\n' "$TASK" "$TASK" >> "$MIN/$sub/manifest.toml"
  done
  du -sh "$MIN"; exit 0
fi
[ -d "$MIN" ] || { echo "no $MIN: run scripts/gpu/realworld_int8.sh prepare first (and carry it)"; exit 2; }
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
DEVICE=${DEVICE:-cuda}
if [ "$DEVICE" = cpu ]; then
  PY=${PY:-.venv/bin/python}; extra=(--sandbox process --jobs 1)
else
  source scripts/gpu/env.sh; extra=(--sandbox bwrap --timing off --baselines none)
  nvidia-smi -L | tee "$OUT/realworld-int8.txt"
fi
seeds=(${SEEDS:-})
[ ${#seeds[@]} -eq 0 ] && for ((i = 0; i < ${RUNS:-1}; i++)); do seeds+=(""); done
start=$(date +%s)
n=0
for sub in "${SUBS[@]}"; do
  for seed in "${seeds[@]}"; do
    n=$((n + 1)); out=/tmp/rw-int8/$sub-$n
    args=(verify "$MIN/$sub" --device "$DEVICE" --out "$out" --force --only "$TASK" "${extra[@]}")
    [ -n "$seed" ] && args+=(--seed "$seed")
    echo "== $sub run $n ${seed:+seed $seed}" | tee -a "$OUT/realworld-int8.txt"
    timeout "${LIMIT_S:-300}" $PY -m kgb.cli "${args[@]}" >> "$OUT/realworld-int8.txt" 2>&1
    echo "   exit $?" | tee -a "$OUT/realworld-int8.txt"
    $PY - "$out/report.json" <<'EOF' | tee -a "$OUT/realworld-int8.txt"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    sys.exit(f"   no report: {e}")
for j in r["jobs"]:
    print(f"   seed {r.get('seed')}: {j['task']} {j['verdict']} {j.get('rule') or ''} "
          f"{(j.get('message') or '')[:300]}")
EOF
    cp "$out/report.json" "$OUT/realworld-int8-$sub-$n.json" 2>/dev/null
  done
done
echo "done after $(( $(date +%s) - start )) s" | tee -a "$OUT/realworld-int8.txt"
