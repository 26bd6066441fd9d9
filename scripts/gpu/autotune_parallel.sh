#!/usr/bin/env bash
# The autotune pre-compile (kgb/worker/precompile.py, issue 24) on the lent GPU: each autotuned
# matmul verified with the pre-compile off (KGB_PRECOMPILE=0: the autotuner compiles config
# after config) and on (all of a key's configs at once on a pool of --limit cpus threads), one
# after the other on the same card, then a table: wall seconds of `kgb verify`, the worker's
# compile/autotune seconds (the supervisor's clock, exec.json) and the verdict.
#   kernels: tests/fixtures/autotune/matmul_64_configs.py (64 configs, key M, N, K) and
#   flaggems_style_matmul.py (FlagGems' decorator stack: autotune + prune + heuristics);
#   FLAGGEMS=path/to/kernel.py adds a real FlagGems-derived matmul.matmul kernel file.
#   The cheat (cheat_torch_in_a_compile.py, --static off: layer 1 refuses constexpr_function)
#   must end D207 or incorrect with the pre-compile on.
# DEVICES (kgb's --devices, default 0) and SHARD (--shard-cases, default auto): on a multi-GPU
# kind, DEVICES=all SHARD=on spreads the job's cases over the GPUs, each key still tuned in full
# (one GPU's floor is ~172 s: docs/performance.md, "The autotune target's floor").
# Env: CPUS (default: nproc), TIMING (off), BASELINES (none), SANDBOX (bwrap), OUT, LIMIT_S (280
# per kgb verify), ONLY (run only kernels whose name contains it), PRES ("0 1"). A device call
# has 600 s: e.g. ONLY=64 in one call, ONLY=flaggems in the next, ONLY=cheat PRES=1 in a third.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
CPUS=${CPUS:-$(nproc)}
work=$(mktemp -d)
kernels=(tests/fixtures/autotune/matmul_64_configs.py tests/fixtures/autotune/flaggems_style_matmul.py)
[ -n "${FLAGGEMS:-}" ] && kernels+=("$FLAGGEMS")
kernels+=(tests/fixtures/autotune/cheat_torch_in_a_compile.py)
printf '%-34s %-4s %8s %10s %10s  %s\n' kernel pre wall_s compile_s worker_s verdict > "$OUT/autotune_parallel.txt"
for k in "${kernels[@]}"; do
  name=$(basename "$k" .py)
  [[ -n "${ONLY:-}" && $name != *"$ONLY"* ]] && continue
  mkdir -p "$work/$name/kernels"; cp "$k" "$work/$name/kernels/k.py"
  printf '[submission]\nname = "%s"\ngenerator = "autotune_parallel.sh"\nmodel = "none"\ncreated = "2026-11-27"\n[[kernels]]\ntask = "matmul.matmul"\nfile = "kernels/k.py"\n' "$name" > "$work/$name/manifest.toml"
  static=on; [[ $name == cheat_* ]] && static=off
  for pre in ${PRES:-0 1}; do
    [[ $name == cheat_* && $pre == 0 ]] && continue
    start=$(date +%s%N)
    KGB_PRECOMPILE=$pre timeout -s TERM "${LIMIT_S:-280}" $PY -m kgb.cli verify "$work/$name" \
      --only matmul.matmul --device cuda --sandbox "${SANDBOX:-bwrap}" --timing "${TIMING:-off}" \
      --baselines "${BASELINES:-none}" --static $static --limit cpus=$CPUS --out "$work/out-$name-$pre" \
      --devices "${DEVICES:-0}" --shard-cases "${SHARD:-auto}" \
      --force > "$OUT/autotune-$name-$pre.txt" 2>&1
    rc=$?
    wall=$(( ($(date +%s%N) - start) / 1000000 ))
    $PY - "$work/out-$name-$pre/jobs/matmul.matmul" "$name" "$pre" "$wall" "$rc" >> "$OUT/autotune_parallel.txt" <<'PYEOF'
import json, sys
job, name, pre, wall, rc = sys.argv[1:]
def read(f):
    try:
        return json.load(open(f"{job}/{f}"))
    except (OSError, ValueError):
        return {}
e, v = read("exec.json"), read("verdict.json").get("verdict") or {}
verdict = v.get("verdict", f"rc={rc}") + (f" {v.get('rule')}" if v.get("rule") else "")
print(f"{name:34s} {pre:4s} {int(wall) / 1000:8.1f} {e.get('compile_s') or 0:10.1f} {e.get('worker_s') or 0:10.1f}  {verdict}")
PYEOF
  done
done
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 >> "$OUT/autotune_parallel.txt"
echo "cpus=$CPUS nproc=$(nproc) triton=$($PY -c 'import triton; print(triton.__version__)')" >> "$OUT/autotune_parallel.txt"
cat "$OUT/autotune_parallel.txt"
rm -rf "$work"
