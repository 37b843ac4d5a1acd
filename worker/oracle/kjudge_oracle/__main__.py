"""`python3 -m kjudge_oracle --fd N`: the oracle process (docs/pytorch-problems.md §3).

Exit status: 0 when the judge closes the socket or sends shutdown; 1 when torch cannot be
imported (the hello packet, ok false, says why); 2 for a bad command line.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import socket
import sys


def _drop_unsafe_paths() -> None:
    """`python3 -m` puts the working directory first on sys.path; the oracle imports nothing from
    wherever it was started (a problem directory must not shadow torch)."""
    cwd = os.getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", cwd)]


def _caches_in_home() -> None:
    """torch.compile writes caches (inductor: $TMPDIR/torchinductor_<user>; triton: ~/.triton);
    with HOME the judge's private temp dir, both land there unless the environment says
    otherwise."""
    home = os.environ.get("HOME")
    if home and os.path.isdir(home):
        os.environ.setdefault("TMPDIR", home)
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(home, "torchinductor"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m kjudge_oracle",
        description="kjudge's PyTorch oracle: runs problems' PyTorch modules on the judge's "
                    "tensors for expected outputs and eager / torch.compile baselines. It speaks "
                    "JSON packets on a SOCK_SEQPACKET socket (docs/pytorch-problems.md §3); the "
                    "judge (kjudge-runner) starts it, a person does not.")
    parser.add_argument("--fd", type=int, required=True,
                        help="descriptor of the oracle's end of a SOCK_SEQPACKET socket pair")
    args = parser.parse_args(argv)
    try:
        sock = socket.socket(fileno=args.fd)
    except OSError as exc:
        print(f"kjudge_oracle: --fd {args.fd} is not a socket: {exc}", file=sys.stderr)
        return 2
    if sock.type != socket.SOCK_SEQPACKET:
        print(f"kjudge_oracle: --fd {args.fd} is not a SOCK_SEQPACKET socket", file=sys.stderr)
        return 2
    try:
        importlib.import_module("torch")
    except Exception as exc:  # pylint: disable=broad-except
        sock.send(json.dumps({"op": "hello", "ok": False, "torch": "", "cuda": False,
                              "device": "", "error": f"cannot import torch with {sys.executable}: "
                                                     f"{type(exc).__name__}: {exc}"}).encode())
        return 1
    from .dtypes import full_fp32  # pylint: disable=import-outside-toplevel
    full_fp32()
    from .server import Server  # pylint: disable=import-outside-toplevel
    return Server(sock).serve()


if __name__ == "__main__":
    _drop_unsafe_paths()
    _caches_in_home()
    sys.exit(main())
