"""kjudge's PEP 517 build backend (in-tree, standard library only): builds the kjudge wheel with
NO build requirements, so `pip install ./clients/python` and `uv pip install ./clients/python`
work in any Python >= 3.9 (pyenv, conda, uv, Debian's), with or without build isolation and
offline: nothing is fetched to build (setuptools needed `wheel` for bdist_wheel, which a bare
venv lacks: "invalid command 'bdist_wheel'").

What goes into the wheel: every file of the `kjudge` package (kjudge/**, *.py and py.typed),
including the gRPC stubs kjudge/v1/kjudge_pb2*.py that generate_stubs.py makes from
../../proto and that are committed (CTest python_client_stubs checks they match the proto). Built
from a checkout on a machine with protoc and grpc_python_plugin (Debian: protobuf-compiler,
protobuf-compiler-grpc; the C++ build needs them), the stubs are made afresh from the checkout's
proto/ instead, the same way, so a proto edit not yet regenerated still installs a matching
client there.
Metadata comes from pyproject.toml's [project] table (name, version, description,
requires-python, dependencies). Hooks: build_wheel, build_sdist, build_editable (a .pth file
pointing at this folder), and the get_requires_* hooks, which ask for nothing.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

try:
    import tomllib  # Python >= 3.11
except ImportError:  # pragma: no cover - older Pythons: a small reader for our own pyproject
    tomllib = None  # type: ignore

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "kjudge"
FIXED_TIME = (2020, 1, 1, 0, 0, 0)  # reproducible archives: the same bytes from the same tree


def _project() -> Dict[str, object]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    if tomllib is not None:
        return dict(tomllib.loads(text)["project"])
    return _read_project_table(text)


def _read_project_table(text: str) -> Dict[str, object]:
    """[project]'s simple keys (strings and one-line string lists), for Pythons without tomllib."""
    import ast
    project: Dict[str, object] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
            continue
        if section != "project" or "=" not in line or line.startswith("#"):
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        try:
            project[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            continue
    return project


def _dist_name() -> Tuple[str, str]:
    project = _project()
    return str(project["name"]).replace("-", "_"), str(project["version"])


def _metadata() -> str:
    project = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project.get('description', '')}"]
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    for dep in project.get("dependencies", []) or []:  # type: ignore[union-attr]
        lines.append(f"Requires-Dist: {dep}")
    readme = ROOT / "README.md"
    if readme.is_file():
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + readme.read_text(encoding="utf-8")
    return "\n".join(lines) + "\n"


def _package_files() -> List[Path]:
    files = []
    for path in sorted((ROOT / PACKAGE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed", ".pyi"):
            files.append(path)
    missing = [n for n in ("kjudge_pb2.py", "kjudge_pb2.pyi", "kjudge_pb2_grpc.py") if not (ROOT / PACKAGE / "v1" / n).is_file()]
    if missing:
        raise RuntimeError(f"kjudge: {', '.join(missing)} missing from {ROOT / PACKAGE / 'v1'}; run "
                           "python3 clients/python/generate_stubs.py (needs grpc_tools) in a kjudge checkout")
    return files


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory: str, entries: List[Tuple[str, bytes]]) -> str:
    name, version = _dist_name()
    dist_info = f"{name}-{version}.dist-info"
    entries = entries + [
        (f"{dist_info}/METADATA", _metadata().encode()),
        (f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: kjudge_build\nRoot-Is-Purelib: true\n"
                               b"Tag: py3-none-any\n"),
        (f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode()),
    ]
    record = [_record_line(n, d) for n, d in entries] + [f"{dist_info}/RECORD,,"]
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    filename = f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, data in entries:
            info = zipfile.ZipInfo(arcname, FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return filename


# ---- PEP 517 / PEP 660 hooks ----

def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def _fresh_stubs() -> Dict[str, bytes]:
    """kjudge/v1/<stub> -> bytes made now from ../../proto by generate_stubs.py's tools (protoc and
    grpc_python_plugin), when they and the proto are there; else {} (the committed stubs)."""
    import shutil
    import subprocess
    import tempfile
    proto = ROOT.parent.parent / "proto"
    protoc, plugin = shutil.which("protoc"), shutil.which("grpc_python_plugin")
    if not (proto / "kjudge" / "v1" / "kjudge.proto").is_file() or not protoc or not plugin:
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([protoc, f"-I{proto}", f"--python_out={tmp}", f"--pyi_out={tmp}", f"--grpc_python_out={tmp}",
                              f"--plugin=protoc-gen-grpc_python={plugin}", str(proto / "kjudge" / "v1" / "kjudge.proto")],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"kjudge: protoc failed on {proto}/kjudge/v1/kjudge.proto:\n{run.stderr}")
        return {f"kjudge/v1/{n}": (Path(tmp) / "kjudge" / "v1" / n).read_bytes()
                for n in ("kjudge_pb2.py", "kjudge_pb2.pyi", "kjudge_pb2_grpc.py")}


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    fresh = _fresh_stubs()
    entries = []
    for p in _package_files():
        name = p.relative_to(ROOT).as_posix()
        entries.append((name, fresh.get(name) or p.read_bytes()))
    return _write_wheel(wheel_directory, entries)


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None,
                   metadata_directory: Optional[str] = None) -> str:
    _package_files()  # the stubs must exist in the tree
    return _write_wheel(wheel_directory, [("kjudge_editable.pth", f"{ROOT}\n".encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    name, version = _dist_name()
    base = f"{name}-{version}"
    files = _package_files() + [ROOT / "pyproject.toml", ROOT / "README.md", Path(__file__).resolve()]
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        pkg_info = _metadata().encode()
        members = [(f"{base}/PKG-INFO", pkg_info)] + [
            (f"{base}/{p.relative_to(ROOT).as_posix()}", p.read_bytes()) for p in files]
        for arcname, data in members:
            info = tarfile.TarInfo(arcname)
            info.size, info.mode, info.mtime = len(data), 0o644, 1577836800
            sdist.addfile(info, io.BytesIO(data))
    return filename
