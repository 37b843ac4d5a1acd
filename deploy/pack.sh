#!/usr/bin/env bash
# Packs a relocatable kjudge bundle for a GPU host that can install nothing (see GPU.md):
#
#   deploy/pack.sh [BUILD_DIR] [OUT_DIR]      defaults: build, dist/kjudge (under the repo root)
#   deploy/pack.sh --print-required           the binaries it refuses to pack without, one a line
#
# OUT_DIR gets:
#   bin/       kjudge-server, kjudge-worker, kjudge-runner, kjudge-candidate, kjudge-compiler (beside the runner,
#              which starts it per compile), kjudge, kjudge-reproduce (beside kjudge, which runs it
#              for `kjudge reproduce`), kjudge-dashboard and any test_* binaries found
#              in BUILD_DIR/bin (copies, debug info stripped)
#   lib/       every shared library ldd lists for those binaries, except glibc's own (libc,
#              libm, libpthread, libdl, librt, libutil, libresolv, ld-linux, ...) and CUDA's
#              (anything under /usr/local/cuda*, and the driver's libcuda / libnvidia-*): the GPU
#              host's /usr/local/cuda/lib64 and driver provide those
#   share/kjudge/std_headers/  kjudge's NVRTC standard headers (<cmath>, <cfloat>, <cstdint>...;
#              worker/compiler/std_headers/README.md): kjudge-compiler finds them at
#              bin/../share/kjudge/std_headers and reads nothing else but the CUDA include tree
#   share/kjudge/oracle/kjudge_oracle/  the PyTorch oracle (worker/oracle/README.md): the runner
#              starts `python3 -m kjudge_oracle` with PYTHONPATH=bin/../share/kjudge/oracle
#   problems/  the problem catalog
#   tests/gpu/ the GPU test suite (run_suite.sh, cases/, run_catalog.sh, run_catalog_shards.sh,
#              run_corpus.sh)
#   tests/corpus/ the kernel corpus that tests/gpu/run_corpus.sh judges
#   tests/oracle/ the PyTorch oracle's tests (`python3 tests/oracle/run_tests.py --cuda`)
#   env.sh     `source`-able: sets KJUDGE_HOME, LD_LIBRARY_PATH=<bundle>/lib:/usr/local/cuda/lib64
#              and PATH, from its own location, so the folder can be moved anywhere
# and prints the total size (it must stay well under 64 MB).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The worker, the server, the CLI and every binary the worker and the runner exec
# (deploy/exec-binaries.txt, the one list demo.sh builds from).
mapfile -t EXEC_BINARIES < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$ROOT/deploy/exec-binaries.txt")
# kjudge-reproduce: `kjudge reproduce JOB` runs it from beside kjudge (worker/judge/reproduce_main.cc).
REQUIRED=(kjudge-server kjudge-worker "${EXEC_BINARIES[@]}" kjudge kjudge-reproduce)
if [[ "${1:-}" == --print-required ]]; then printf '%s\n' "${REQUIRED[@]}"; exit 0; fi
BUILD="${1:-$ROOT/build}"
OUT="${2:-$ROOT/dist/kjudge}"
LIMIT_MB=64

die() { echo "pack.sh: $*" >&2; exit 1; }

[[ -d "$BUILD/bin" ]] || die "no $BUILD/bin: build first (cmake --build $BUILD)"
BUILD="$(cd "$BUILD" && pwd)"

missing=()
for b in "${REQUIRED[@]}"; do [[ -x "$BUILD/bin/$b" ]] || missing+=("$b"); done
((${#missing[@]} == 0)) || die "missing in $BUILD/bin: ${missing[*]}"

# Refuse to wipe a folder that is not ours.
if [[ -e "$OUT" ]]; then
  if [[ -f "$OUT/.kjudge-bundle" ]] || [[ -z "$(ls -A "$OUT")" ]]; then
    rm -rf "$OUT"
  else
    die "$OUT exists and is not a kjudge bundle (no .kjudge-bundle marker); remove it yourself"
  fi
fi
mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/tests"
touch "$OUT/.kjudge-bundle"
OUT="$(cd "$OUT" && pwd)"

# ---- binaries ----
bins=("${REQUIRED[@]}")
shopt -s nullglob
for f in "$BUILD"/bin/kjudge-dashboard "$BUILD"/bin/test_* "$BUILD"/bin/kjudge-bench-*; do
  [[ -f "$f" && -x "$f" ]] && bins+=("$(basename "$f")")
done
shopt -u nullglob
for b in "${bins[@]}"; do
  cp -L "$BUILD/bin/$b" "$OUT/bin/$b"
  strip --strip-debug "$OUT/bin/$b" 2>/dev/null || echo "pack.sh: warning: could not strip $b" >&2
done

# ---- shared libraries ----
is_system_lib() {  # $1 = soname
  case "$1" in
    linux-vdso.so*|linux-gate.so*|ld-linux*.so*|ld64.so*) return 0 ;;
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libutil.so*|libresolv.so*) return 0 ;;
    libanl.so*|libnsl.so*|libmvec.so*|libBrokenLocale.so*|libnss_*.so*|libcrypt.so.1) return 0 ;;
    libcuda.so*|libnvidia-*.so*|libcudart.so*|libnvrtc*.so*|libcublas*.so*|libcupti.so*) return 0 ;;
    libnvJitLink.so*|libnvptxcompiler*.so*|libcufft*.so*|libcurand.so*|libcusparse*.so*) return 0 ;;
    libcusolver*.so*|libnvToolsExt.so*|libnvperf*.so*) return 0 ;;
  esac
  return 1
}

declare -A copied=()
not_found=()
for b in "${bins[@]}"; do
  # ldd lines: "soname => /path (0x...)", "soname => not found", "/lib64/ld-linux... (0x...)"
  while IFS= read -r line; do
    line="${line#"${line%%[![:space:]]*}"}"
    [[ "$line" == *"=>"* ]] || continue
    soname="${line%% =>*}"
    rest="${line#*=> }"
    path="${rest%% (*}"
    if is_system_lib "$soname"; then continue; fi
    if [[ "$rest" == "not found"* ]]; then
      not_found+=("$b: $soname"); continue
    fi
    [[ -f "$path" ]] || continue
    real="$(readlink -f "$path")"
    case "$real" in /usr/local/cuda*|/opt/cuda*) continue ;; esac
    if [[ -z "${copied[$soname]:-}" ]]; then
      cp -L "$path" "$OUT/lib/$soname"
      chmod u+w "$OUT/lib/$soname"
      strip --strip-debug "$OUT/lib/$soname" 2>/dev/null || true
      copied[$soname]="$real"
    fi
  done < <(ldd "$BUILD/bin/$b" 2>/dev/null || true)
done
if ((${#not_found[@]})); then
  printf 'pack.sh: warning: ldd found no %s (not copied)\n' "${not_found[@]}" >&2
fi

# ---- data: the compiler's standard headers, problems and the GPU suite ----
mkdir -p "$OUT/share/kjudge"
cp -R "$ROOT/worker/compiler/std_headers" "$OUT/share/kjudge/std_headers"
# The compiler runs as nobody when the worker runs as root: the headers must be world-readable.
chmod -R a+rX "$OUT/share"
[[ -f "$OUT/share/kjudge/std_headers/cmath" ]] || die "std_headers missing from $OUT/share/kjudge"
# The PyTorch oracle's package (sources only: no __pycache__ from a build tree's test runs).
mkdir -p "$OUT/share/kjudge/oracle/kjudge_oracle"
cp "$ROOT"/worker/oracle/kjudge_oracle/*.py "$OUT/share/kjudge/oracle/kjudge_oracle/"
# The catalog checker (worker/oracle/check_problems.py: every module problem on this host's GPU).
cp "$ROOT"/worker/oracle/check_problems.py "$OUT/share/kjudge/oracle/"
chmod -R a+rX "$OUT/share/kjudge/oracle"
[[ -f "$OUT/share/kjudge/oracle/kjudge_oracle/__main__.py" ]] || die "oracle package missing from $OUT/share/kjudge"
cp -R "$ROOT/problems" "$OUT/problems"
cp -R "$ROOT/tests/gpu" "$OUT/tests/gpu"
cp -R "$ROOT/tests/corpus" "$OUT/tests/corpus"   # the kernel corpus (tests/gpu/run_corpus.sh)
cp -R "$ROOT/tests/oracle" "$OUT/tests/oracle"   # the oracle's tests (run_tests.py --cuda on a GPU host)
rm -rf "$OUT/tests/oracle/__pycache__"
mkdir -p "$OUT/bench" && cp -R "$ROOT/bench/throughput" "$OUT/bench/throughput"
chmod +x "$OUT"/tests/gpu/*.sh 2>/dev/null || true

# ---- env.sh ----
cat > "$OUT/env.sh" <<'ENV'
# Source me: `source <bundle>/env.sh`. Works wherever the bundle folder is.
KJUDGE_HOME="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export KJUDGE_HOME
export LD_LIBRARY_PATH="$KJUDGE_HOME/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$KJUDGE_HOME/bin${PATH:+:$PATH}"
ENV

{
  echo "built_from=$ROOT"
  echo "git_commit=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "packed_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "binaries=${bins[*]}"
  echo "libraries=$(find "$OUT/lib" -type f -printf '%f\n' | sort | tr '\n' ' ')"
} > "$OUT/MANIFEST.txt"

# ---- size report ----
total_kb="$(du -sk "$OUT" | cut -f1)"
echo "pack.sh: bundle $OUT"
echo "  binaries: ${#bins[@]} ($(du -sh "$OUT/bin" | cut -f1)), libraries: ${#copied[@]} ($(du -sh "$OUT/lib" | cut -f1))"
echo "  total: $((total_kb / 1024)) MB ($total_kb KB)"
if ((total_kb >= LIMIT_MB * 1024)); then
  die "bundle is $((total_kb / 1024)) MB, over the ${LIMIT_MB} MB limit"
fi
