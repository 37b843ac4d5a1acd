#!/usr/bin/env python3
"""Generates the kjudge.v1 gRPC stubs (kjudge/v1/kjudge_pb2.py, kjudge_pb2_grpc.py) from the
repository's proto/kjudge/v1/kjudge.proto with `protoc` (Debian: protobuf-compiler, 3.21) and
`grpc_python_plugin` (Debian: protobuf-compiler-grpc), the tools the C++ build already uses.

protoc >= 3.19 makes stubs that every protobuf runtime from 3.20 on accepts, the upb-based 4.x
and 5.x from PyPI included (Debian's python3-grpc-tools 1.14 bundles protoc 3.6, whose stubs those
runtimes refuse: "Descriptors cannot be created directly").

The stubs are committed, so that the package builds with no build requirements in any Python
(_build/kjudge_build.py); this script is how they are made. After changing proto/:

    python3 clients/python/generate_stubs.py            # rewrite them, then commit them
    python3 clients/python/generate_stubs.py --check    # exit 1 when they differ from the proto

CTest python_client_stubs runs --check, so a proto change without regenerated stubs fails CI.
Exit status: 0 done / matching, 1 differing, 2 protoc, the plugin or the proto missing.
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTO_ROOT = HERE.parent.parent / "proto"
PROTO_FILE = "kjudge/v1/kjudge.proto"
STUBS = ("kjudge_pb2.py", "kjudge_pb2.pyi", "kjudge_pb2_grpc.py")
TARGET = HERE / "kjudge" / "v1"


def tools():
    """(protoc, grpc_python_plugin) paths, or None when either is missing."""
    protoc, plugin = shutil.which("protoc"), shutil.which("grpc_python_plugin")
    return (protoc, plugin) if protoc and plugin else None


def generate(proto_root: Path, out_dir: Path) -> None:
    found = tools()
    if found is None:
        raise SystemExit("generate_stubs: protoc and grpc_python_plugin are needed (Debian: apt-get install "
                         "protobuf-compiler protobuf-compiler-grpc, or run deploy/install-deps.sh)")
    protoc, plugin = found
    run = subprocess.run([protoc, f"-I{proto_root}", f"--python_out={out_dir}", f"--pyi_out={out_dir}", f"--grpc_python_out={out_dir}",
                          f"--plugin=protoc-gen-grpc_python={plugin}", str(proto_root / PROTO_FILE)],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"generate_stubs: protoc failed on {proto_root / PROTO_FILE}:\n{run.stderr}")


def main() -> int:
    parser = argparse.ArgumentParser(description="Generate (or --check) the committed kjudge.v1 gRPC stubs.")
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when they differ")
    parser.add_argument("--proto-root", type=Path, default=PROTO_ROOT,
                        help="the folder holding kjudge/v1/kjudge.proto (default: the checkout's proto/)")
    args = parser.parse_args()
    proto_root = args.proto_root.resolve()
    if tools() is None:
        print("generate_stubs: protoc and grpc_python_plugin are not on PATH; on Debian: apt-get install "
              "protobuf-compiler protobuf-compiler-grpc", file=sys.stderr)
        return 2
    if not (proto_root / PROTO_FILE).is_file():
        print(f"generate_stubs: {proto_root / PROTO_FILE} not found (run it from a kjudge checkout)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        generate(proto_root, Path(tmp))
        made = {n: (Path(tmp) / "kjudge" / "v1" / n).read_bytes() for n in STUBS}
    if args.check:
        stale = [n for n in STUBS if not (TARGET / n).is_file() or (TARGET / n).read_bytes() != made[n]]
        for n in stale:
            print(f"generate_stubs: {TARGET / n} does not match {proto_root / PROTO_FILE}; run "
                  "python3 clients/python/generate_stubs.py and commit the result", file=sys.stderr)
        if not stale:
            print(f"generate_stubs: {', '.join(STUBS)} match {PROTO_FILE}")
        return 1 if stale else 0
    for n in STUBS:
        (TARGET / n).write_bytes(made[n])
        print(f"generate_stubs: wrote {TARGET / n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
