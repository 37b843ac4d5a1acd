#!/usr/bin/env bash
# Compile feedback on a GPU host (issue 27): what JobResult.kernels says (ptxas' report and the
# cubin's launch bounds, read without a GPU) equals what the CUDA driver says of the same kernels.
# Run from a bundle made by deploy/pack.sh:
#
#   dist/kjudge/tests/gpu/kernel_resources_check.sh OUT_DIR
#
# Starts kjudge-server (fresh SQLite DB) and one kjudge-worker, judges
# tests/gpu/kernel_resources/kernels.cu as level1/19_ReLU (a full job: it must be CORRECT, and a
# compile-only one), then compiles the same source with NVRTC for the job's arch, loads it with
# the driver and compares, per kernel, registers (CU_FUNC_ATTRIBUTE_NUM_REGS), local_bytes
# (LOCAL_SIZE_BYTES), static_shared_bytes (SHARED_SIZE_BYTES) and max_threads_per_block
# (MAX_THREADS_PER_BLOCK). Prints one line per kernel and "N/N kernels match"; exits non-zero on
# any difference.
set -uo pipefail
[[ $# -ge 1 && "$1" != "-h" && "$1" != "--help" ]] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
BUNDLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$1" && OUT="$(cd "$1" && pwd)"
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
  echo "kernel_resources_check.sh: the worker found no GPU; this check needs one" >&2
  exit 1
fi
SRC="$BUNDLE/tests/gpu/kernel_resources/kernels.cu"
K=("$BUNDLE/bin/kjudge" --server "$ADDR" --json)
"${K[@]}" submit "$SRC" --problem level1/19_ReLU --wait >"$OUT/full.json" 2>"$OUT/full.err"
"${K[@]}" submit "$SRC" --problem level1/19_ReLU --compile-only --wait >"$OUT/compiled.json" 2>"$OUT/compiled.err"
host_py - "$OUT/full.json" "$OUT/compiled.json" "$SRC" "${CUDA_HOME:-/usr/local/cuda}" <<'PY'
import ctypes, json, re, sys
full, compiled = (json.load(open(p)) for p in sys.argv[1:3])
src, cuda = open(sys.argv[3], "rb").read(), sys.argv[4]
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok &= bool(cond)
check(full["result"]["verdict"] == "CORRECT", f"full job verdict {full['result']['verdict']}: {full['result'].get('message', '')}")
check(compiled["result"]["verdict"] == "COMPILED", f"compile-only job verdict {compiled['result']['verdict']}")
num = lambda k, f: int(k.get(f, 0))
kernels = {k["name"]: k for k in compiled["result"].get("kernels", [])}
full_kernels = {k["name"]: k for k in full["result"].get("kernels", [])}
check(kernels == full_kernels, "the full job reports the same kernels as the compile-only one")
check(set(kernels) == {"relu_smem", "heavy", "spill", "capped", "two"}, f"kernels {sorted(kernels)}")
check(num(kernels.get("relu_smem", {}), "dynamic_shared_bytes") == 2048, "relu_smem: dynamic 2048 B from the plan")
arch = re.search(r"compiled for (sm_\w+)", compiled["result"]["message"]).group(1)
nvrtc = ctypes.CDLL(f"{cuda}/lib64/libnvrtc.so")
cu = ctypes.CDLL("libcuda.so.1")
prog = ctypes.c_void_p()
assert nvrtc.nvrtcCreateProgram(ctypes.byref(prog), src, b"solution.cu", 0, None, None) == 0
opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17", b"-lineinfo"]
assert nvrtc.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts)) == 0
size = ctypes.c_size_t()
nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(size))
cubin = ctypes.create_string_buffer(size.value)
nvrtc.nvrtcGetCUBIN(prog, cubin)
dev, ctx, mod = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_void_p()
assert cu.cuInit(0) == 0 and cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0 and cu.cuCtxSetCurrent(ctx) == 0
assert cu.cuModuleLoadData(ctypes.byref(mod), cubin) == 0
attrs = {"max_threads_per_block": 0, "static_shared_bytes": 1, "local_bytes": 3, "registers": 4}
matched = 0
for name, k in sorted(kernels.items()):
    fn = ctypes.c_void_p()
    assert cu.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode()) == 0, name
    driver = {}
    for field, attr in attrs.items():
        v = ctypes.c_int()
        assert cu.cuFuncGetAttribute(ctypes.byref(v), attr, fn) == 0
        driver[field] = v.value
    ours = {f: num(k, f) for f in attrs}
    same = ours == driver
    matched += same
    check(same, f"{name}: kjudge {ours} driver {driver} (spills {num(k, 'spill_store_bytes')}/{num(k, 'spill_load_bytes')} B)")
print(f"{matched}/{len(kernels)} kernels match")
sys.exit(0 if ok and matched == len(kernels) else 1)
PY
