#!/usr/bin/env bash
# Every binary kjudge-worker and kjudge-runner exec is built by deploy/demo.sh and packed by
# deploy/pack.sh (issue 27 point 1: demo.sh once left out kjudge-candidate, and on a GPU host the
# example job ended INTERNAL_ERROR).
#
#   tests/deploy/check_exec_binaries.sh SOURCE_DIR [BIN_DIR]
#
# 1. The exec sites: every whole string literal "kjudge-NAME" in worker/'s non-test sources that
#    names an executable target (add_executable in a CMakeLists.txt) must be listed in
#    deploy/exec-binaries.txt, and every listed name must be such a target.
# 2. `deploy/demo.sh --print-targets` and `deploy/pack.sh --print-required` hold every listed name.
# 3. With BIN_DIR (a build's bin/ holding those binaries): pack.sh packs a bundle from exactly the
#    required binaries, and the bundle's bin/ holds each listed name, executable.
set -euo pipefail
SRC="$(cd "${1:?usage: check_exec_binaries.sh SOURCE_DIR [BIN_DIR]}" && pwd)"
BIN_DIR="${2:-}"
[[ -z "$BIN_DIR" ]] || BIN_DIR="$(cd "$BIN_DIR" && pwd)"
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

mapfile -t listed < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$SRC/deploy/exec-binaries.txt")
((${#listed[@]} > 0)) || bad "deploy/exec-binaries.txt lists nothing"
mapfile -t targets < <(grep -rhoE --include=CMakeLists.txt 'add_executable\(kjudge-[a-z-]+' "$SRC" \
  | sed 's/add_executable(//' | sort -u)
is_target() { local t; for t in "${targets[@]}"; do [[ "$t" == "$1" ]] && return 0; done; return 1; }
is_listed() { local t; for t in "${listed[@]}"; do [[ "$t" == "$1" ]] && return 0; done; return 1; }

# 1. exec sites in worker/ (tests excluded: they name binaries they start themselves).
mapfile -t named < <(grep -rhoE --include='*.cc' --include='*.h' --exclude='*_test.cc' \
  '"kjudge-[a-z-]+"' "$SRC/worker" | tr -d '"' | sort -u)
execed=0
for n in "${named[@]}"; do
  is_target "$n" || continue
  execed=$((execed + 1))
  is_listed "$n" || bad "worker/ names the binary $n (an exec site) but deploy/exec-binaries.txt does not list it"
done
((execed >= 3)) || bad "found only $execed exec sites in worker/ (expected kjudge-runner, -compiler, -candidate): the scan is broken"
for n in "${listed[@]}"; do
  is_target "$n" || bad "deploy/exec-binaries.txt lists $n, which no CMakeLists.txt builds (add_executable)"
done

# 2. demo.sh builds them, pack.sh requires them.
demo_targets="$(bash "$SRC/deploy/demo.sh" --print-targets)"
pack_required="$(bash "$SRC/deploy/pack.sh" --print-required)"
for n in "${listed[@]}" kjudge-worker; do
  grep -qx -- "$n" <<<"$demo_targets" || bad "deploy/demo.sh does not build $n"
  grep -qx -- "$n" <<<"$pack_required" || bad "deploy/pack.sh does not require $n"
done

# 3. A bundle packed from exactly the required binaries holds them.
if [[ -n "$BIN_DIR" ]]; then
  tmp="$(mktemp -d /tmp/kjudge-exec-binaries.XXXXXX)"
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/build/bin"
  while IFS= read -r n; do
    [[ -x "$BIN_DIR/$n" ]] || { bad "$BIN_DIR/$n is missing: build it first"; continue; }
    ln -s "$BIN_DIR/$n" "$tmp/build/bin/$n"
  done <<<"$pack_required"
  if ((fail == 0)); then
    bash "$SRC/deploy/pack.sh" "$tmp/build" "$tmp/bundle" >"$tmp/pack.log" 2>&1 \
      || { cat "$tmp/pack.log" >&2; bad "deploy/pack.sh failed"; }
    for n in "${listed[@]}" kjudge-worker; do
      [[ -x "$tmp/bundle/bin/$n" ]] || bad "the packed bundle has no executable bin/$n"
    done
    # pack.sh must refuse a build that lacks one of them.
    rm "$tmp/build/bin/${listed[-1]}"
    if bash "$SRC/deploy/pack.sh" "$tmp/build" "$tmp/bundle2" >"$tmp/pack2.log" 2>&1; then
      bad "deploy/pack.sh packed a build without ${listed[-1]}"
    fi
  fi
fi
((fail == 0)) && echo "ok: ${#listed[@]} exec'd binaries (${listed[*]}) are built by demo.sh and packed by pack.sh"
exit "$fail"
