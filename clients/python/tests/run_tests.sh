#!/usr/bin/env bash
# CTest's python_client: installs the kjudge package exactly as clients/python/README.md says
# (a venv over Debian's python3-grpcio/python3-protobuf, pip with no index and no build
# isolation, so nothing comes from a registry), then runs the tests in clients/python/tests
# against real kjudge-server and compile-only kjudge-worker processes (no GPU needed).
# The binaries come from $KJUDGE_SERVER_BIN, $KJUDGE_WORKER_BIN, $KJUDGE_RUNNER_BIN (CTest sets
# them), else the repository's build/bin. Extra arguments go to pytest (e.g. -k evaluate).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
python=${KJUDGE_PYTHON:-/usr/bin/python3}  # Debian's interpreter, the one python3-grpcio is built for
if ! "$python" -c "import grpc, google.protobuf, grpc_tools, pytest, mypy" 2>/dev/null; then
  echo "python_client: $python lacks grpc, protobuf, grpc_tools, pytest or mypy; run deploy/install-deps.sh" \
       "(python3-venv python3-grpcio python3-protobuf python3-grpc-tools python3-pytest mypy)" >&2
  exit 1
fi
work=$(mktemp -d /tmp/kjudge-pyclient.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"
# The documented install, from the repository root.
(cd "$repo" && "$work/venv/bin/pip" install --quiet --no-build-isolation --no-index ./clients/python)
# From an empty folder, so `import kjudge` can only find the installed package. (No exec: the
# EXIT trap removes the folder.)
cd "$work"
# The package's annotations hold (the generated stubs are left out: they carry none).
"$work/venv/bin/python" -m mypy --config-file "$repo/clients/python/pyproject.toml" -p kjudge
"$work/venv/bin/python" -m pytest -p no:cacheprovider -q -rs "$repo/clients/python/tests" "$@"
