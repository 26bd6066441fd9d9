#!/usr/bin/env bash
# Issue 24 on the lent GPU (docs/gpu-ipc.md): can a bwrap-sandboxed worker hand its outputs to the
# judge through a CUDA VMM arena (cuMemCreate + POSIX fd), and is the arena frozen once the
# worker is reaped? scripts/gpu/vmm_probe.py's steps 1-6; one TSV line per finding on stdout and
# in $OUT/vmm_probe.tsv (default /tmp/kgb-gpu). Carry [".whl", ".device"] (bwrap from the .deb;
# scripts/gpu/prepare.sh makes both). About 80 s; VMM_BUDGET_S (default 80) caps the probe,
# VMM_BIG_GB (default 6.4) sizes step 6. Anywhere, without a GPU: DRY=1 (the plan and tables).
cd "$(dirname "$0")/../.."
if [ -n "${DRY:-}" ]; then exec "${PY:-python3}" scripts/gpu/vmm_probe.py --dry; fi
source scripts/gpu/env.sh
[ -x "$KGB_BWRAP" ] || echo "no .device/bwrap-deb (run scripts/gpu/prepare.sh, carry .device): the bwrap steps will say so"
export OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
nvidia-smi -L 2>/dev/null | head -2
timeout -s TERM -k 10 "${CALL_S:-100}" "$PY" scripts/gpu/vmm_probe.py
