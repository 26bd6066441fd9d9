#!/usr/bin/env bash
# Both cheating corpora on the GPU through bwrap (issue 10: the launch and timing items on the
# device): tests/fixtures/dynamic_gpu (timing cheats, the tutorial's warmup launch) first, then
# the CPU corpus tests/fixtures/dynamic. CORPORA="dynamic" runs one of them (one device call
# each). Eager baselines only: verdicts need none, and torch.compile's double a job's time.
# CORPUS_ARGS adds options: "--timing off --jobs 4" checks layers 2-3 without the timing rules,
# four jobs on the GPU at once (the CPU corpus in about two minutes). Results in $OUT.
source "$(dirname "$0")/env.sh"
OUT=${OUT:-/tmp/kgb-gpu}; mkdir -p "$OUT"
for corpus in ${CORPORA:-dynamic_gpu dynamic}; do
  rm -rf "/tmp/corpus-$corpus"
  start=$(date +%s)
  timeout "${LIMIT_S:-560}" $PY -m kgb.suite.corpus "tests/fixtures/$corpus" --device cuda \
    --sandbox bwrap --static off --gpu-shapes 2 --baselines "${BASELINES:-eager}" \
    ${CORPUS_ARGS:-} --out "/tmp/corpus-$corpus" > "$OUT/corpus-$corpus.txt" 2>&1
  echo "rc=$? after $(( $(date +%s) - start )) s" >> "$OUT/corpus-$corpus.txt"
  cp "/tmp/corpus-$corpus/corpus.json" "$OUT/corpus-$corpus.json" 2>/dev/null
  cp "/tmp/corpus-$corpus/cheats/report.json" "$OUT/corpus-$corpus-report.json" 2>/dev/null
  tail -25 "$OUT/corpus-$corpus.txt"
done
