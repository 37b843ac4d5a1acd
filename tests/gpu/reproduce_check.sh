#!/usr/bin/env bash
# `kjudge reproduce` end to end on a GPU host (issue 26): the regenerated inputs are bit for bit
# the ones the candidate saw. Run from a bundle made by deploy/pack.sh:
#
#   dist/kjudge/tests/gpu/reproduce_check.sh OUT_DIR [JOBS]
#
# Starts kjudge-server (fresh SQLite DB) and one kjudge-worker, then JOBS times (default 3)
# judges tests/gpu/reproduce/relu_checksum.cu (level1/19_ReLU; it prints, for each test shape,
# an FNV-1a 64 checksum of the 32-bit words of its input X into candidate_output), and for every
# test set of each job runs `kjudge reproduce JOB --set 'test I'` (the spec as the server serves
# it) and checks: exit 0, X.npy is '<f4' of shape (M, N), manifest.json names the set's shape,
# regime and key and the sha256 of X's bytes, and the checksum of X.npy equals the one the
# kernel printed for that shape. The first set is also reproduced with --problems (the bundle's
# catalog) and with kjudge-reproduce by hand: the same bytes. Each test set's regime is drawn
# at random, so several jobs cover several regimes (printed). Prints one line per set and
# "N/N test sets reproduced bit-exact"; exits non-zero on any failure.
set -uo pipefail
[[ $# -ge 1 && "$1" != "-h" && "$1" != "--help" ]] || { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$1" && OUT="$(cd "$1" && pwd)"
JOBS="${2:-3}"
[[ -x "$BUNDLE/bin/kjudge-reproduce" ]] || { echo "reproduce_check.sh: no $BUNDLE/bin/kjudge-reproduce (pack the bundle with deploy/pack.sh)" >&2; exit 2; }
ORIG_LD="${LD_LIBRARY_PATH:-}"
# shellcheck source=/dev/null
source "$BUNDLE/env.sh"
host_py() { if [[ -n "$ORIG_LD" ]]; then LD_LIBRARY_PATH="$ORIG_LD" python3 "$@"; else env -u LD_LIBRARY_PATH python3 "$@"; fi; }

TMP="$(mktemp -d)"
SERVER_PID="" WORKER_PID=""
cleanup() {
  [[ -n "$WORKER_PID" ]] && kill -TERM "$WORKER_PID" 2>/dev/null
  [[ -n "$SERVER_PID" ]] && kill -TERM "$SERVER_PID" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
ADDR=127.0.0.1:$((20000 + RANDOM % 20000))
"$BUNDLE/bin/kjudge-server" --db "$TMP/kjudge.sqlite" --listen "$ADDR" --problems "$BUNDLE/problems" \
  --submit-rate 0 >"$OUT/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 200); do grep -q "listening on" "$OUT/server.log" && break; sleep 0.1; done
grep -q "listening on" "$OUT/server.log" || { echo "kjudge-server did not start:"; cat "$OUT/server.log"; exit 1; }
"$BUNDLE/bin/kjudge-worker" --server "$ADDR" --cache-dir "$TMP/cubins" --time-budget-ms 500 >"$OUT/worker.log" 2>&1 &
WORKER_PID=$!
for _ in $(seq 600); do grep -q "registered with" "$OUT/worker.log" && break; sleep 0.1; done
if ! grep -q "runner ready on " "$OUT/worker.log"; then
  echo "reproduce_check.sh: the worker found no GPU; this check needs one:" >&2
  grep -m1 "compile-only mode" "$OUT/worker.log" >&2
  exit 1
fi
K=("$BUNDLE/bin/kjudge" --server "$ADDR")
KERNEL="$BUNDLE/tests/gpu/reproduce/relu_checksum.cu"
PROBLEM=level1/19_ReLU

# Checks one reproduced set: $1 = folder, $2 = the job's JSON file, $3 = the set's --list entry (JSON).
check_set() {
  host_py - "$1" "$2" "$3" <<'PY'
import hashlib, json, re, struct, sys
folder, job_file, entry = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
job = json.load(open(job_file))
manifest = json.load(open(f"{folder}/manifest.json"))
raw = open(f"{folder}/X.npy", "rb").read()
assert raw[:6] == b"\x93NUMPY", "X.npy: not an NPY file"
hlen = struct.unpack("<H", raw[8:10])[0]
header, data = raw[10:10 + hlen].decode("latin1"), raw[10 + hlen:]
assert (10 + hlen) % 64 == 0, f"X.npy: header not 64-byte aligned ({10 + hlen})"
m, n = (int(v) for v in re.match(r"M=(\d+),N=(\d+)", entry["shape"]).groups())
assert "'descr': '<f4'" in header and f"'shape': ({m}, {n})" in header, f"X.npy header {header!r}"
assert len(data) == 4 * m * n, f"X.npy holds {len(data)} bytes, not {4 * m * n}"
x = [t for t in manifest["tensors"] if t["name"] == "X"][0]
for field, want in (("shape", entry["shape"]), ("regime", entry["regime"]), ("key_hex", entry["key_hex"]),
                    ("set", entry["set"]), ("problem", job["problem"])):
    assert manifest[field] == want, f"manifest {field} {manifest[field]!r} != {want!r}"
assert x["sha256"] == hashlib.sha256(data).hexdigest(), "manifest sha256 != X.npy's bytes"
h = 0xcbf29ce484222325
for (w,) in struct.iter_unpack("<I", data):
    h = ((h ^ w) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
printed = re.findall(rf"KJ_CHECKSUM n={m * n} h=([0-9a-f]{{16}})", job["result"].get("candidate_output", ""))
assert printed, f"the kernel printed no checksum for n={m * n}"
assert f"{h:016x}" in printed, f"checksum {h:016x} != printed {printed}"
try:
    import numpy
    assert numpy.load(f"{folder}/X.npy").shape == (m, n)
except ImportError:
    pass
print(f"{entry['set']:<8} {entry['shape']:<14} {entry['regime']:<9} {h:016x}  bit-exact")
PY
}

ok=0 total=0
regimes=()
for j in $(seq 1 "$JOBS"); do
  "${K[@]}" --json submit "$KERNEL" --problem "$PROBLEM" --wait >"$OUT/job$j.json" 2>"$OUT/job$j.err"
  id=$(host_py -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$OUT/job$j.json" 2>/dev/null)
  verdict=$(host_py -c 'import json,sys; print(json.load(open(sys.argv[1]))["result"]["verdict"])' "$OUT/job$j.json" 2>/dev/null)
  echo "job $j: ${id:-?} ${verdict:-?}"
  [[ "$verdict" == CORRECT ]] || { echo "  FAIL: the checksum ReLU must be CORRECT"; cat "$OUT/job$j.err"; total=$((total + 1)); continue; }
  "${K[@]}" --json reproduce "$id" --list >"$OUT/job$j.sets.json" 2>>"$OUT/job$j.err" || { echo "  FAIL: reproduce --list"; total=$((total + 1)); continue; }
  mapfile -t entries < <(host_py -c 'import json,sys
for s in json.load(open(sys.argv[1]))["sets"]:
    if s["set"].startswith("test "): print(json.dumps(s))' "$OUT/job$j.sets.json")
  mkdir -p "$OUT/job$j"
  for entry in "${entries[@]}"; do
    set_name=$(host_py -c 'import json,sys; print(json.loads(sys.argv[1])["set"])' "$entry")
    dir="$OUT/job$j/${set_name// /_}"
    total=$((total + 1))
    if ! "${K[@]}" reproduce "$id" --set "$set_name" --out "$dir" >"$dir.log" 2>&1; then
      echo "  FAIL: kjudge reproduce $id --set '$set_name':"; sed 's/^/    /' "$dir.log"; continue
    fi
    if line=$(check_set "$dir" "$OUT/job$j.json" "$entry" 2>&1); then
      echo "  $line"; ok=$((ok + 1)); regimes+=("$(awk '{print $4}' <<<"$line")")
    else
      echo "  FAIL: $set_name: $line"
    fi
  done
done

# The first set again: with the bundle's catalog, and by hand with kjudge-reproduce: same bytes.
first="$OUT/job1/test_0"
if [[ -f "$first/manifest.json" ]]; then
  total=$((total + 1))
  id=$(host_py -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$OUT/job1.json")
  mapfile -t a < <(host_py -c 'import json,sys
for s in json.load(open(sys.argv[1]))["sets"]:
    if s["set"] == "test 0": print(s["shape"]); print(s["key_hex"]); print(s["regime"])' "$OUT/job1.sets.json")
  "${K[@]}" reproduce "$id" --set "test 0" --problems "$BUNDLE/problems" --out "$OUT/job1/test_0_local" >"$OUT/local.log" 2>&1
  "$BUNDLE/bin/kjudge-reproduce" --problems "$BUNDLE/problems" --problem "$PROBLEM" --shape "${a[0]}" \
    --key "${a[1]}" --regime "${a[2]}" --out "$OUT/job1/test_0_by_hand" --json >"$OUT/by_hand.json" 2>"$OUT/by_hand.err"
  if cmp -s "$first/X.npy" "$OUT/job1/test_0_local/X.npy" && cmp -s "$first/X.npy" "$OUT/job1/test_0_by_hand/X.npy"; then
    echo "test 0 again (--problems, and kjudge-reproduce by hand): identical X.npy"; ok=$((ok + 1))
  else
    echo "FAIL: test 0 reproduced three ways differs"; cat "$OUT/local.log" "$OUT/by_hand.err"
  fi
fi
echo "regimes seen: $(printf '%s\n' "${regimes[@]}" | sort | uniq -c | awk '{printf "%s x%s  ", $2, $1}')"
echo "$ok/$total test sets reproduced bit-exact"
[[ $ok -eq $total && $total -gt 0 ]]
