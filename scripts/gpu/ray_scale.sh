#!/usr/bin/env bash
# Issue 25 on the lent 4-GPU host (or a 2-GPU one): a batch of 64 one-kernel submissions
# (examples/honest's 16 kernels, four copies) verified through Ray on 1 GPU and on 4 GPUs (or
# 2: scaling efficiency), and a run where one actor is killed mid-run (nothing lost, nothing
# counted twice).
# On the dev machine first: RAY=1 scripts/gpu/prepare.sh; then carry [".whl", ".ray"].
#   STEP=scale4   the batch on every GPU (--ray local: a one-node cluster of this machine)
#   STEP=scale2   the batch on GPUs 0 and 1 (CUDA_VISIBLE_DEVICES=0,1): a 2-GPU host's scale
#   STEP=scale1   the same batch on GPU 0 alone (CUDA_VISIBLE_DEVICES=0), the cluster and kgb
#                 pinned to the host's first quarter of cores (taskset; PIN=0: not pinned), so
#                 one GPU runs with its quarter of the host as a one-GPU node would; each job's
#                 CPU share is the one it has in scale4 (the actor counts the node's
#                 /dev/nvidiaN: its cores over 4 GPUs x JOBS); RESUME=1 continues a run the
#                 call's limit stopped (kgb verify --resume), on the same machine
#   STEP=kill     the batch on every GPU (GPUS of them, default 4), one actor's process
#                 SIGKILLed after KILL_AFTER_S
#   STEP=report   kernels per GPU-hour of each finished run and the efficiency (scale2 and
#                 scale4 each against scale1)
# DRY=1: on any machine, without .whl/.ray: prints each step's kgb command instead of running
# it (the batch is still written, the report still read), e.g. DRY=1 PY=.venv/bin/python.
# KGB_ARGS go to every kgb verify (default: --baselines none: the scaling of kgb's jobs, not
# of PyTorch's baselines; timing stays on).
# Each run leaves OUT/<run>.txt (kgb's output) and OUT/<run>-jobs.tsv (one row per job: where
# its time went, scripts/ray_jobs.py; its sums and Ray's start are its last lines).
# JOBS (default 1): kgb's --jobs, jobs at once on each GPU's actor (timed ones under its timing
# lock, as a local --jobs N). CLUSTER=1: each run joins a cluster started for it beforehand
# (`ray start --head` on the run's GPUs, `--ray ADDRESS`), as a fleet's long-lived cluster:
# the run's wall leaves out the cluster's start (5-8 s), not the actors' (in the TSV's
# `actors_ready`); the cluster is stopped after the run.
# COPIES (default 4) copies of KERNELS (default: all 16 of examples/honest, as task ids with
# spaces) make the batch: 16 x 4 = 64 one-kernel submissions. A batch of the short jobs only
# (e.g. 8 x 8) keeps the one-GPU run inside the device budget; WORK names the batch's folder.
set -uo pipefail
GPUS=${GPUS:-4}
# BG=1: the step runs in a process session of its own (setsid), which outlives the device
# tool's call (a one-GPU run of 128 submissions takes longer than a call's 600 s); the call
# waits up to WAIT_S for it and copies what it wrote into $OUT. STEP=wait, in a later call
# on the same warm machine, waits again and copies. Its files: /tmp/kgb-bg.
BG_DIR=/tmp/kgb-bg
bg_collect() {
  local pid waited=0
  pid=$(cat "$BG_DIR/pid" 2>/dev/null) || { echo "no background step in $BG_DIR"; exit 2; }
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "${WAIT_S:-560}" ]; do
    sleep 2; waited=$((waited + 2))
  done
  mkdir -p "${OUT:-/tmp/kgb-gpu}" && cp -r "$BG_DIR/out/." "${OUT:-/tmp/kgb-gpu}/"
  cp "$BG_DIR/log" "${OUT:-/tmp/kgb-gpu}/background.log"
  if kill -0 "$pid" 2>/dev/null; then
    echo "the background step still runs after ${waited} s here: STEP=wait in the next call"
  else
    echo "the background step ended"; tail -8 "$BG_DIR/log"
  fi
  exit 0
}
[ "${STEP:-}" = wait ] && bg_collect
if [ -n "${BG:-}" ] && [ -z "${DRY:-}" ]; then
  rm -rf "$BG_DIR"; mkdir -p "$BG_DIR/out"
  OUT=$BG_DIR/out BG='' setsid nohup bash "$0" > "$BG_DIR/log" 2>&1 < /dev/null &
  echo $! > "$BG_DIR/pid"
  bg_collect
fi
if [ -n "${DRY:-}" ]; then
  PY=${PY:-python3}
else
  source "$(dirname "$0")/env.sh"
  [ -f .ray/ray-site.tar.xz ] || { echo "no .ray: RAY=1 scripts/gpu/prepare.sh, carry .ray"; exit 2; }
  export KGB_BWRAP=$PWD/.ray/bwrap-deb/usr/bin/bwrap
  if [ ! -f /tmp/raysite/.done ]; then
    mkdir -p /tmp/raysite && tar -xJf .ray/ray-site.tar.xz -C /tmp/raysite && touch /tmp/raysite/.done
  fi
  export PYTHONPATH=/tmp/raysite:$PYTHONPATH RAY_USAGE_STATS_ENABLED=0
fi
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
WORK=${WORK:-/tmp/ray-scale}; mkdir -p "$WORK"
BATCH=$WORK/batch
if [ ! -d "$BATCH" ]; then
  $PY - "$BATCH" "${COPIES:-4}" "${KERNELS:-}" <<'EOF' || { rm -rf "$BATCH"; exit 2; }
import sys, tomllib, shutil
from pathlib import Path
out, copies, only = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split()
manifest = tomllib.loads(Path("examples/honest/manifest.toml").read_text())
kernels = [k for k in manifest["kernels"] if not only or k["task"] in only]
unknown = set(only) - {k["task"] for k in kernels}
if unknown:
    raise SystemExit(f"KERNELS names tasks examples/honest lacks: {sorted(unknown)}")
for copy in range(copies):
    for k in kernels:
        sub = out / f"c{copy}-{k['task']}"
        (sub / "kernels").mkdir(parents=True)
        shutil.copy(Path("examples/honest") / k["file"], sub / k["file"])
        (sub / "manifest.toml").write_text(
            f'[submission]\nname = "c{copy}-{k["task"]}"\ngenerator = "kgb suite solutions"\n'
            f'model = "none"\ncreated = "2026-11-27"\n\n[[kernels]]\ntask = "{k["task"]}"\n'
            f'file = "{k["file"]}"\n')
print(len(list(out.iterdir())), "submissions")
EOF
fi
args=(verify "$BATCH" --device cuda --sandbox "${SANDBOX:-bwrap}" --jobs "${JOBS:-1}" ${KGB_ARGS:---baselines none})
cluster_token() {  # $1: the cluster's folder: its own token, for the cluster and kgb alike
  rm -rf "$1"; mkdir -p "$1"; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$1/token"
  export RAY_AUTH_MODE=token RAY_AUTH_TOKEN_PATH=$1/token
}
# A run on fewer GPUs than the host has gets their share of its cores (taskset, PIN=0: none),
# as a node with that many GPUs of the kind would: on the whole host, scale1's two jobs had 64
# cores where scale4's eight shared them, and started and judged faster (run 26: 474 against
# 386 kernels per GPU-hour; the 0.81 measured the host's idle cores, not kgb's scaling).
PINNED=()
pin_to() {  # $1: the run's GPUs
  PINNED=()
  local cores host; cores=$(nproc)
  host=$(ls /dev/nvidia[0-9]* 2>/dev/null | wc -l); [ "$host" -gt 0 ] || host=$GPUS
  if [ "${PIN:-1}" != 0 ] && [ "$1" -lt "$host" ]; then
    local last=$(( cores * $1 / host - 1 )); [ "$last" -ge 0 ] || last=0
    PINNED=(taskset -c "0-$last")
  fi
}
start_cluster() {  # $1: the cluster's folder; the rest: env (CUDA_VISIBLE_DEVICES): its address
  local temp=$1; shift
  "${PINNED[@]}" env "$@" $PY -m ray.scripts.scripts start --head --port 0 --temp-dir "$temp" \
    --include-dashboard false --disable-usage-stats > "$temp/start.txt" 2>&1 \
    || { tail -5 "$temp/start.txt" >&2; return 1; }
  awk '{print $1; exit}' "$temp/ray_current_cluster"
}
run() {  # $1: run name; the rest: env for kgb
  local name=$1; shift
  # (a `case` inside $(...) does not parse in bash: its `)` ends the substitution)
  local gpus=$GPUS
  [ "$name" = scale1 ] && gpus=1
  [ "$name" = scale2 ] && gpus=2
  pin_to "$gpus"
  local extra=(--out "$WORK/$name")
  [ -n "${RESUME:-}" ] && extra+=(--resume)
  if [ -n "${DRY:-}" ]; then
    echo "[dry] $name: ${PINNED[*]} env $* timeout ${LIMIT_S:-540} $PY -m kgb.cli ${args[*]} --ray $([ -n "${CLUSTER:-}" ] && echo ADDRESS || echo local) ${extra[*]}"
    return
  fi
  local ray=local
  if [ -n "${CLUSTER:-}" ]; then
    cluster_token "/tmp/rayc-$name"
    ray=$(start_cluster "/tmp/rayc-$name" "$@") || { echo "$name: ray start failed" | tee -a "$OUT/$name.txt"; return; }
  fi
  local t0=$(date +%s.%N)
  "${PINNED[@]}" env "$@" timeout "${LIMIT_S:-540}" $PY -m kgb.cli "${args[@]}" --ray "$ray" "${extra[@]}" > "$OUT/$name.txt" 2>&1
  local rc=$? t1=$(date +%s.%N)  # the wall ends with kgb: the cluster's stop is not the run's,
  [ -n "${CLUSTER:-}" ] && $PY -m ray.scripts.scripts stop --force > /dev/null 2>&1  # as its start
  echo "rc=$rc wall_s=$($PY -c "print(round($t1 - $t0, 1))")" | tee -a "$WORK/$name.walls" >> "$OUT/$name.txt"
  tail -5 "$OUT/$name.txt"
  # where each job's time went, as one small file under $OUT (not 64 job folders: the device
  # tool drops deep or many files): submission, task, node/actor, slot, wall, worker, waited,
  # judge, retried, and the actor's and the host's own seconds (scripts/ray_jobs.py)
  local places=$(( ${JOBS:-1} * gpus ))
  $PY scripts/ray_jobs.py "$WORK/$name" --places "$places" --tsv "$OUT/$name-jobs.tsv" > /dev/null \
    && { head -9 "$OUT/$name-jobs.tsv"; grep '^#' "$OUT/$name-jobs.tsv"; }
  # every member not judged correct comes back whole but for its outputs (its report and
  # its job's files: the verdict, the rule, the judge's and the worker's accounts)
  local member
  for member in "$WORK/$name"/*/; do
    [ -f "$member/report.json" ] || continue
    $PY - "$member" <<'EOF2' || continue
import json, sys
from pathlib import Path
report = json.loads((Path(sys.argv[1]) / "report.json").read_text())
sys.exit(0 if any(j.get("verdict") not in ("passed", "missing")
                  for j in report.get("jobs", [])) else 1)
EOF2
    mkdir -p "$OUT/$name-notpassed"
    tar -czf "$OUT/$name-notpassed/$(basename "$member").tgz" -C "$member" \
      --exclude='outputs*' --exclude='*.safetensors' . 2>/dev/null
    echo "$name: $(basename "$member") not passed: kept in $name-notpassed/"
  done
}
case "${STEP:-report}" in
  scale4) run scale4 ;;
  scale2) run scale2 CUDA_VISIBLE_DEVICES=0,1 ;;
  scale1) run scale1 CUDA_VISIBLE_DEVICES=0 ;;
  kill)
    [ -n "${DRY:-}" ] && { run kill; exit 0; }
    ( sleep "${KILL_AFTER_S:-90}"
      pid=$(pgrep -f "ray::SlotActor" | head -1)
      echo "killing actor pid $pid at $(date +%T)" >> "$OUT/kill.txt"; kill -9 "$pid" ) &
    run kill ;;
esac
$PY - "$WORK" "$GPUS" <<'EOF' | tee "$OUT/ray_scale.txt"
import json, sys
from pathlib import Path
sys.path.insert(0, "scripts")
import ray_jobs
work, host_gpus = Path(sys.argv[1]), int(sys.argv[2])
rates = {}
for name, gpus in (("scale1", 1), ("scale2", 2), ("scale4", 4), ("kill", host_gpus)):
    walls = work / f"{name}.walls"
    summary = work / name / "summary.json"
    if not walls.is_file() or not summary.is_file():
        continue
    wall = sum(float(line.split("wall_s=")[1]) for line in walls.read_text().split("\n") if "wall_s=" in line)
    rows = json.loads(summary.read_text())["submissions"]
    # a member the limit cut has a row (its partial report) but no finished job: not counted
    done = [r for r in rows if "error" not in r and r.get("complete")]
    correct = sum(r.get("correct") or 0 for r in done)
    retried = sum(len(json.loads((work / name / r["name"] / "report.json").read_text())
                      .get("ray", {}).get("retried", {})) for r in done)
    rate = len(done) / (wall * gpus) * 3600
    rates[name] = rate
    print(f"{name}: {len(done)} submissions, {correct} correct, {retried} retried, "
          f"wall {wall:.0f} s on {gpus} GPU(s): {rate:.0f} kernels/GPU-hour")
    # where the GPU-seconds went: the actors' jobs, Ray's start, the rest (idle at the tail,
    # jobs cut by the limit) -- scripts/ray_jobs.py's table, OUT/<run>-jobs.tsv
    jobs = ray_jobs.rows(work / name)
    busy = sum(n for _, n in ray_jobs.busy_by_node(jobs).values())
    start = next(((json.loads(p.read_text()).get("ray") or {}).get("run") or {}
                  for p in (work / name).glob("*/report.json")), {})
    print(f"  {len(jobs)} job folders, actors busy {busy:.0f} of {wall * gpus:.0f} GPU-s "
          f"({busy / (wall * gpus):.0%}); mean job {busy / max(1, len(jobs)):.1f} s; Ray's "
          f"start: connect {start.get('connect', 0):.1f} s, actors ready "
          f"{start.get('actors_ready', 0):.1f} s")
for name, gpus in (("scale2", 2), ("scale4", 4)):
    if "scale1" in rates and name in rates:
        print(f"scaling efficiency 1 -> {gpus} GPUs: {rates[name] / rates['scale1']:.2f}")
EOF
