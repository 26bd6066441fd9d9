#!/usr/bin/env bash
# Verify every built submission under .realworld/submissions with kgb (defaults: static layer
# on, one job at a time). Usage: scripts/realworld/verify_all.sh [cpu|cuda] [TASKS_DIR] [SUB...]
# KGB_EXTRA: more kgb verify options (e.g. "--sandbox bwrap --timing off --jobs 4" on a GPU).
set -u
cd "$(dirname "$0")/../.."
DEVICE=${1:-cpu}
TASKS=${2:-}
shift $(( $# > 2 ? 2 : $# ))
SUBS=("$@")
if [ ${#SUBS[@]} -eq 0 ]; then
  SUBS=($(ls .realworld/submissions))
fi
KGB=${KGB:-kgb}
for sub in "${SUBS[@]}"; do
  args=(verify ".realworld/submissions/$sub" --device "$DEVICE" --out ".realworld/out/$sub" --force)
  [ -n "$TASKS" ] && args+=(--tasks "$TASKS")
  if [ "$DEVICE" = cpu ]; then args+=(--sandbox process --jobs 1); fi
  args+=(${KGB_EXTRA:-})
  echo "== $sub"
  $KGB "${args[@]}" > ".realworld/out-$sub.log" 2>&1
  echo "   exit $? ($(grep -E '^passed|^[a-z_]+: ' ".realworld/out-$sub.log" | tail -1))"
done
