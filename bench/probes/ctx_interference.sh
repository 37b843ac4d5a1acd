#!/usr/bin/env bash
# Runs ctx_interference on the GPU host. For victim sizes 8 MB (~10 us) and 1 GB (~0.75 ms):
# a quiet run, then runs while other processes back to back either only initialise CUDA
# (cuInit, no context) or create a context; prints median / p90 / max of the event times.
# Also times cuInit and context creation apart ("split").
set -euo pipefail
OUT="${1:?out dir}"; mkdir -p "$OUT"
cd "$(dirname "$0")"
nvcc -O2 -arch=sm_90 -o "$OUT/probe" ctx_interference.cu
P="$OUT/probe"
for i in 1 2 3; do "$P" init; done
for i in 1 2 3; do "$P" ctx; done
for i in 1 2 3; do "$P" split; done
summ() {
  python3 - "$1" "$2" <<'PY'
import sys, statistics as st
v = sorted(float(l.split()[1]) for l in open(sys.argv[1]))
print(f"{sys.argv[2]:<16} n={len(v):5d} median={st.median(v):9.3f} p10={v[len(v)//10]:9.3f} p90={v[len(v)*9//10]:9.3f} p99={v[len(v)*99//100]:9.3f} max={v[-1]:9.3f}")
PY
}
for mb in 8 1024; do
  n=$(( mb == 8 ? 20000 : 3000 ))
  "$P" victim $mb $n "$OUT/quiet_$mb.tsv"
  summ "$OUT/quiet_$mb.tsv" "$mb MB quiet"
  for mode in init ctx; do
    "$P" victim $mb $n "$OUT/${mode}_$mb.tsv" &
    v=$!
    sleep 0.3
    while kill -0 $v 2>/dev/null; do "$P" $mode > /dev/null; done
    wait $v || true
    summ "$OUT/${mode}_$mb.tsv" "$mb MB $mode"
  done
done
