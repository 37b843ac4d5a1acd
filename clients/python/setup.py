"""Builds the kjudge package and generates its gRPC stubs from the repository's proto/.

The stubs (kjudge/v1/kjudge_pb2.py, kjudge_pb2_grpc.py) are never committed: they are made here,
at build time, by grpc_tools.protoc (Debian: python3-grpc-tools) from proto/kjudge/v1/kjudge.proto,
so the client always speaks the API of the checkout it was installed from. They are written into
the build directory only, never into the source tree.
"""

import os
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
PROTO_FILE = "kjudge/v1/kjudge.proto"


def proto_dir() -> Path:
    """The folder holding kjudge/v1/kjudge.proto: $KJUDGE_PROTO_DIR, else the checkout's proto/."""
    override = os.environ.get("KJUDGE_PROTO_DIR")
    candidate = Path(override) if override else HERE.parent.parent / "proto"
    if not (candidate / PROTO_FILE).is_file():
        sys.exit(
            f"kjudge: {candidate / PROTO_FILE} not found. Install from a kjudge checkout "
            "(pip install --no-build-isolation ./clients/python from the repository root), "
            "or set KJUDGE_PROTO_DIR to the folder that holds kjudge/v1/kjudge.proto."
        )
    return candidate


def generate_stubs(out_dir: Path) -> None:
    """Runs grpc_tools.protoc into out_dir; exits with what to install when it is missing."""
    try:
        from grpc_tools import protoc
    except ImportError:
        sys.exit(
            "kjudge: grpc_tools is needed to generate the gRPC stubs. On Debian: "
            "apt-get install python3-grpc-tools (or run deploy/install-deps.sh), then build in a venv "
            "made with --system-site-packages and pip install --no-build-isolation."
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    source = proto_dir()
    args = ["grpc_tools.protoc", f"-I{source}", f"--python_out={out_dir}", f"--grpc_python_out={out_dir}",
            str(source / PROTO_FILE)]
    if protoc.main(args) != 0:
        sys.exit(f"kjudge: grpc_tools.protoc failed on {source / PROTO_FILE} (see above)")


class BuildPyWithStubs(build_py):
    """build_py, then the generated stubs next to kjudge/v1/__init__.py in the build directory."""

    def run(self) -> None:
        # pip builds in the source tree: start from an empty build/lib/kjudge so that a module
        # removed from the tree is not packaged again from an earlier build.
        shutil.rmtree(Path(self.build_lib) / "kjudge", ignore_errors=True)
        super().run()
        generate_stubs(Path(self.build_lib))


setup(cmdclass={"build_py": BuildPyWithStubs})
