#!/usr/bin/env bash
# The whole suite's own solutions on the lent GPU, correctness only (issue 27): `kgb suite check
# --device cuda --sandbox bwrap --timing off --resume` over one CHUNK of the suite, so the 456
# tasks fit 10-minute device calls (docs/suite-gpu.md: chunks, calls, how to read the table).
# On the dev machine first: scripts/gpu/prepare.sh; then run with carry [".whl", ".device"],
# naming the same kind on every call (a resumed check must stay on one GPU model).
#   CHUNK=i/n   chunk i of n (1-based) of the task ids sorted: every n-th id from the i-th
#               (striped, so a category's slow tasks -- convolution autotuning -- spread over
#               every chunk instead of filling one). Required, unless
#   TASKS       names the tasks instead (ids, comma- or space-separated; NAME, default "tasks",
#               names the state: $NAME.state.tar.gz), e.g. the tasks fixed since a chunk ran;
#               merged after the chunks, its verdicts win
#   JOBS        jobs at once on each GPU (default 10: a 16-core host per GPU; --timing off, so
#               nothing timed is disturbed; session 19 ran 10 on one H100)
#   DEVICES     kgb's --devices (default 0; "all" on a multi-GPU kind: JOBS on each GPU)
#   CALL_S      the whole call's budget in seconds (default 540): kgb gets what is left after
#               setup minus 40 s, then SIGTERM (finished jobs are journaled), then the state
#   STATE       an earlier call's state for this chunk (default
#               .device/suite-gpu/chunk-i-of-n.state.tar.gz when present): resumed. A warm
#               machine's own /tmp copy wins over it.
# Writes to $OUT (default /tmp/kgb-gpu): chunk-i-of-n.log (kgb's output), chunk-i-of-n.rows.md
# (one table row per finished task), chunk-i-of-n.state.tar.gz (run.json, each finished job's
# verdict.json and plan.json, the report.json this call wrote: what --resume and the merge read;
# copy it under .device/suite-gpu/ on the dev machine before the chunk's next call).
#   STEP=merge  (here, anywhere) docs/suite-gpu.md's table from several calls' state files,
#               given as arguments, oldest first (a task's entry comes from the last one that
#               finished it); the tasks no call finished are listed under it. Prints markdown.
#               MIXED=1: the calls ran on several GPU models (H100 and H200: one architecture,
#               sm_90, one compiler output) -- correctness checks only (--timing off); each
#               row names its model
# DRY=1: anywhere, without .whl/.device or a GPU: prints the chunk's tasks and the kgb command.
# LOCAL=1: run for real without env.sh (e.g. DEVICE=cpu SANDBOX=process: a rehearsal of the
# state and resume steps on the dev machine); DEVICE and SANDBOX default to cuda and bwrap.
set -uo pipefail
cd "$(dirname "$0")/../.."
START=$(date +%s)
if [ "${STEP:-check}" = merge ]; then
  PY=${PY:-python3}
  exec "$PY" - "$@" <<'EOF'
import io, json, os, sys, tarfile, tempfile
from pathlib import Path
sys.path.insert(0, "scripts/gpu")
sys.path.insert(0, ".")
from merge_adaptation import merged
from kgb.suite.check import adaptation_table
from kgb.tasks.index import index_suite

reports = []
for arg in sys.argv[1:]:
    try:
        with tarfile.open(arg) as tar:
            names = tar.getnames()
            if "run/report.json" not in names and "chunk" in names:
                print(f"{arg}: no report (that call's kgb wrote none): skipped", file=sys.stderr)
                continue
            member = tar.extractfile("run/report.json")
            if member is None:
                raise KeyError("run/report.json is not a file")
            reports.append(json.load(io.TextIOWrapper(member)))
    except (OSError, KeyError, tarfile.TarError, ValueError) as exc:
        raise SystemExit(f"{arg}: not a state file with run/report.json ({exc})")
if not reports:
    raise SystemExit("STEP=merge: give the calls' chunk-*.state.tar.gz files, oldest first")
with tempfile.TemporaryDirectory() as folder:
    paths = []
    for i, report in enumerate(reversed(reports)):  # merged() keeps a task's first entry
        paths.append(Path(folder) / f"{i}.json")
        paths[-1].write_text(json.dumps(report))
    table = merged(paths, mixed=os.environ.get("MIXED") == "1")
table["seed"] = ", ".join(dict.fromkeys(str(r["seed"]) for r in reports))  # a resumed run's repeats
print(adaptation_table(table), end="")
done = {j["task"] for j in table["jobs"]}
left = [t for t in sorted(index_suite(Path("tasks")).ids()) if t not in done]
print(f"\n{len(done)} of {len(done) + len(left)} tasks have a verdict; not finished yet "
      f"({len(left)}): {', '.join(left) if left else 'none'}")
EOF
fi
CHUNK=${CHUNK:-}; i=${CHUNK%/*}; n=${CHUNK#*/}
if [ -n "${TASKS:-}" ]; then  # an explicit list instead of a chunk (e.g. tasks fixed since)
  CHUNK=tasks; [[ "${NAME:-tasks}" =~ ^[A-Za-z0-9_-]+$ ]] || { echo "NAME: letters, digits, - and _"; exit 2; }
elif ! [[ "$CHUNK" =~ ^[0-9]+/[0-9]+$ ]] || [ "$i" -lt 1 ] || [ "$i" -gt "$n" ]; then
  echo "CHUNK=$CHUNK: give i/n with 1 <= i <= n (or TASKS=id,id,... NAME=...)"; exit 2
fi
if [ -n "${DRY:-}${LOCAL:-}" ]; then
  PY=${PY:-python3}
else
  source "scripts/gpu/env.sh"
  [ -x "$KGB_BWRAP" ] || { echo "no .device/bwrap-deb: run scripts/gpu/prepare.sh, carry .device"; exit 2; }
fi
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
if [ "$CHUNK" = tasks ]; then name=${NAME:-tasks}; else name=chunk-$i-of-$n; fi
WORK=${WORK:-/tmp/suite-gpu}/$name
ids=$("$PY" - "$CHUNK" "${TASKS:-}" <<'EOF'
import sys
from pathlib import Path
sys.path.insert(0, ".")
from kgb.tasks.index import index_suite
every = sorted(index_suite(Path("tasks")).ids())
if sys.argv[1] == "tasks":
    wanted = [t for t in sys.argv[2].replace(" ", ",").split(",") if t]
    unknown = sorted(set(wanted) - set(every))
    if unknown:
        sys.exit(f"TASKS names tasks the suite lacks: {', '.join(unknown)}")
    print(",".join(sorted(set(wanted))))
else:
    i, n = (int(part) for part in sys.argv[1].split("/"))
    print(",".join(every[i - 1::n]))
EOF
) || { echo "could not list the tasks"; exit 2; }
count=$(tr ',' '\n' <<< "$ids" | grep -c .)
args=(suite check --device "${DEVICE:-cuda}" --sandbox "${SANDBOX:-bwrap}" --timing off
      --jobs "${JOBS:-10}" --out "$WORK" --only "$ids")
[ "${DEVICE:-cuda}" = cpu ] || args+=(--devices "${DEVICES:-0}")
STATE=${STATE:-.device/suite-gpu/$name.state.tar.gz}
if [ -n "${DRY:-}" ]; then
  echo "[dry] $name: $count tasks: $ids"
  echo "[dry] state: $([ -f "$STATE" ] && echo "resume from $STATE" || echo "none (a fresh check)")"
  echo "[dry] timeout -s TERM -k 20 <left of ${CALL_S:-540} s - 40> $PY -m kgb.cli ${args[*]} [--resume]"
  exit 0
fi
if [ ! -f "$WORK/run/run.json" ] && [ -f "$STATE" ]; then
  mkdir -p "$WORK" && tar -xzf "$STATE" -C "$WORK" || { echo "$STATE: unreadable"; exit 2; }
fi
resume=(); [ -f "$WORK/run/run.json" ] && resume=(--resume)  # kgb refuses --resume on nothing
rm -f "$WORK/run/report.json"  # an earlier call's: the state carries only a report this call wrote
left=$(( START + ${CALL_S:-540} - 40 - $(date +%s) ))
[ "$left" -lt 60 ] && { echo "only $left s left for kgb: raise CALL_S"; exit 2; }
echo "$name: $count tasks, ${resume[*]:-fresh}, kgb gets $left s" | tee "$OUT/$name.log"
timeout -s TERM -k 20 "$left" "$PY" -m kgb.cli "${args[@]}" "${resume[@]}" >> "$OUT/$name.log" 2>&1
rc=$?
echo "rc=$rc wall_s=$(( $(date +%s) - START ))" | tee -a "$OUT/$name.log"
# the state: what --resume reads (run.json; a finished job's verdict.json and plan.json, which
# the resumed report is built from) and what the merge reads (report.json)
(cd "$WORK" && echo "$CHUNK" > chunk && tar -czf "$OUT/$name.state.tar.gz" chunk \
  $(ls run/run.json run/report.json 2>/dev/null) \
  $(for v in run/jobs/*/verdict.json; do [ -f "$v" ] && ls "$v" "$(dirname "$v")/plan.json"; done 2>/dev/null))
if [ -f "$WORK/run/report.json" ]; then
  "$PY" - "$WORK/run/report.json" > "$OUT/$name.rows.md" <<'EOF'
import json, sys
sys.path.insert(0, ".")
from kgb.suite.check import adaptation_table
report = json.load(open(sys.argv[1]))
rows = [r for r in adaptation_table(report).splitlines() if r.startswith("| ")][1:]
print("\n".join(r for r, j in zip(rows, report["jobs"]) if j["verdict"] != "missing"))
EOF
  echo "$(grep -c . "$OUT/$name.rows.md") of $count tasks finished; passed: $(grep -c '| passed |' "$OUT/$name.rows.md")"
else
  echo "no report.json (kgb stopped before writing one): the next call resumes from the verdicts"
fi
