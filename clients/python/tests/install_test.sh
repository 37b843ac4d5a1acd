#!/usr/bin/env bash
# CTest python_client_install (issue 27 pt7): the client installs into a venv WITHOUT system
# site packages, in each Python given, with build isolation on and no package index: the build
# backend is in-tree and needs nothing (clients/python/_build/kjudge_build.py), the gRPC stubs are
# committed. What a pyenv / conda / uv user does, offline.
#
# grpcio and protobuf: tried from the index pip is configured with (PIP_FIND_LINKS / a local
# wheelhouse); offline and without one, the venv is given Debian's python3-grpcio and
# python3-protobuf ONLY (a folder holding just grpc/, google/protobuf and their egg-info, named in
# a .pth file): the rest of the system's site-packages stays invisible, as the test checks.
# Interpreters: $KJUDGE_PYTHON (default /usr/bin/python3), plus `python3` on PATH when it is
# another interpreter of the same version (e.g. pyenv's; Debian's grpcio is built for that
# version). uv: `uv pip install` too when uv is on PATH. Also: the wheel holds the stubs and
# kjudge.rewards, and two builds of it are byte-identical.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
base=${KJUDGE_PYTHON:-/usr/bin/python3}
work=$(mktemp -d /tmp/kjudge-pyinstall.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

pythons=("$base")
other=$(command -v python3 || true)
if [[ -n "$other" ]]; then
  other_real=$("$other" -c 'import sys; print(sys.executable)' 2>/dev/null || true)
  base_ver=$("$base" -c 'import sys; print(sys.version_info[:2])')
  other_ver=$("$other" -c 'import sys; print(sys.version_info[:2])' 2>/dev/null || true)
  if [[ -n "$other_real" && "$(readlink -f "$other_real")" != "$(readlink -f "$base")" && "$other_ver" == "$base_ver" ]]; then
    pythons+=("$other_real")
  fi
fi

# grpcio + protobuf only, from the base interpreter's installation.
grpc_only="$work/grpc-only"
mkdir -p "$grpc_only/google"
"$base" - "$grpc_only" <<'PY'
import os, sys, grpc, google.protobuf
from pathlib import Path
out = Path(sys.argv[1])
site = Path(grpc.__file__).resolve().parent.parent
os.symlink(Path(grpc.__file__).resolve().parent, out / "grpc")
os.symlink(Path(google.protobuf.__file__).resolve().parent, out / "google" / "protobuf")
for meta in site.iterdir():  # pip must see them installed (Requires-Dist grpcio, protobuf)
    if meta.name.lower().startswith(("grpcio-", "protobuf-")) and meta.suffix in (".egg-info", ".dist-info"):
        os.symlink(meta, out / meta.name)
PY

# Build the wheel twice: same bytes; the stubs and the rewards module inside.
"$base" -m pip wheel --quiet --no-index --no-deps -w "$work/w1" "$repo/clients/python"
"$base" -m pip wheel --quiet --no-index --no-deps -w "$work/w2" "$repo/clients/python"
cmp "$work"/w1/*.whl "$work"/w2/*.whl || fail "two builds of the wheel differ"
listing=$("$base" -m zipfile -l "$work"/w1/*.whl)
for f in kjudge/v1/kjudge_pb2.py kjudge/v1/kjudge_pb2_grpc.py kjudge/rewards.py kjudge/py.typed; do
  grep -q " *$f " <<<"$listing" || grep -q "^$f " <<<"$listing" || fail "the wheel lacks $f"
done

check_venv() {  # venv python: kjudge from the venv, grpc only from grpc-only, no other system package
  (cd "$work" && "$1" - <<'PY'
import sys, kjudge, kjudge.rewards, grpc
from kjudge.v1 import kjudge_pb2
assert "site-packages" in kjudge.__file__ and "/clients/python/" not in kjudge.__file__, kjudge.__file__
assert hasattr(kjudge_pb2, "SubmitRequest")
try:
    import numpy  # Debian has it in dist-packages: it must not be visible
    raise SystemExit(f"system site packages are visible (numpy from {numpy.__file__})")
except ImportError:
    pass
try:  # a real gRPC call: nobody listens on port 1
    with kjudge.Client("127.0.0.1:1", retry=kjudge.NO_RETRY, timeout=5) as kj:
        kj.problems()
    raise SystemExit("expected Unreachable")
except kjudge.Unreachable:
    pass
print(f"ok: kjudge {kjudge.__version__} in {sys.executable} ({sys.version.split()[0]}), grpc {grpc.__version__}")
PY
  )
}

n=0
for py in "${pythons[@]}"; do
  n=$((n + 1))
  venv="$work/venv$n"
  "$py" -m venv "$venv" || fail "$py -m venv failed"
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  if "$venv/bin/pip" install --quiet --timeout 5 --retries 0 grpcio protobuf >/dev/null 2>&1; then
    echo "$py: grpcio and protobuf installed from the configured index"
  else
    echo "$py: no index reachable: grpcio and protobuf ONLY from $base's installation (.pth)"
    echo "$grpc_only" > "$site/kjudge_test_grpc_only.pth"
  fi
  # The README's line for any Python: build isolation on, no index needed.
  (cd "$repo" && "$venv/bin/pip" install --quiet --no-index ./clients/python) || fail "pip install into $py's venv failed"
  check_venv "$venv/bin/python" || fail "the client installed into $py's venv does not work"
done

if command -v uv >/dev/null 2>&1; then
  uv venv --quiet --python "$base" "$work/uvenv"
  site=$("$work/uvenv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$grpc_only" > "$site/kjudge_test_grpc_only.pth"
  (cd "$repo" && uv pip install --quiet --offline --python "$work/uvenv/bin/python" ./clients/python) \
    || fail "uv pip install failed"
  check_venv "$work/uvenv/bin/python" || fail "the client installed by uv does not work"
else
  echo "uv not on PATH: uv pip install not tried"
fi
echo "python_client_install: PASS (${#pythons[@]} interpreter(s))"
