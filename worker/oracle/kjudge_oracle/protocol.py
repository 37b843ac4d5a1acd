"""Packets on the judge's SOCK_SEQPACKET socket: one JSON object each, maybe with descriptors.

Contract:
  * receive(sock) returns a Packet, or None when the judge closed its end (EOF). A packet that
    is not a JSON object, is over MAX_PACKET bytes or lost descriptors in transit becomes a
    Packet whose `error` says so (its descriptors are still returned, for the caller to close).
  * A request with more descriptors than one packet carries (a model's tensors, one descriptor
    each) comes as `{"op":"fds"}` packets, each carrying the next descriptors, then the request's
    own packet with the last ones: receive() returns that one request with all of them, in the
    order sent (at most MAX_REQUEST_FDS; more, or EOF after an fds packet, is an error).
  * send(sock, reply) writes one packet (a JSON object).
  * send_request(sock, request, fds) writes a request with its descriptors the way receive()
    reads one: `{"op":"fds"}` packets of FDS_PER_PACKET ahead of the request's own packet (the
    compile oracle forwards the judge's requests to its children so).
"""
from __future__ import annotations

import json
import socket
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

MAX_PACKET = 4 << 20   # bytes of JSON in one packet (docs/pytorch-problems.md §3)
MAX_FDS = 253          # SCM_MAX_FD: the most descriptors Linux passes in one message
MAX_REQUEST_FDS = 4096  # descriptors of one request over its fds packets (the judge's cap)
FDS_PER_PACKET = 250   # what send_request puts in one packet (the judge's client sends as many)


@dataclass
class Packet:
    request: Dict[str, Any] = field(default_factory=dict)
    fds: List[int] = field(default_factory=list)
    error: str = ""   # set when the packet is not a usable request


def receive(sock: socket.socket) -> Optional[Packet]:
    carried: List[int] = []  # descriptors of {"op":"fds"} packets ahead of the request
    while True:
        packet = _receive_one(sock)
        if packet is None:
            if carried:
                return Packet(fds=carried, error="the judge closed the socket after an fds packet")
            return None
        packet.fds = carried + packet.fds
        if packet.error or packet.request.get("op") != "fds":
            break
        carried = packet.fds
        if len(carried) > MAX_REQUEST_FDS:
            return Packet(fds=carried, error=f"over {MAX_REQUEST_FDS} descriptors in one request")
    if len(packet.fds) > MAX_REQUEST_FDS and not packet.error:
        packet.error = f"over {MAX_REQUEST_FDS} descriptors in one request"
    return packet


def _receive_one(sock: socket.socket) -> Optional[Packet]:
    data, fds, flags, _ = socket.recv_fds(sock, MAX_PACKET + 1, MAX_FDS)
    if not data and not fds:
        return None
    packet = Packet(fds=list(fds))
    if flags & socket.MSG_TRUNC or len(data) > MAX_PACKET:
        packet.error = f"request packet over {MAX_PACKET} bytes (truncated)"
    elif flags & socket.MSG_CTRUNC:
        packet.error = f"request lost file descriptors in transit (more than {MAX_FDS}?)"
    else:
        try:
            request = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            packet.error = f"request is not valid UTF-8 JSON: {exc}"
        else:
            if isinstance(request, dict):
                packet.request = request
            else:
                packet.error = f"request is JSON but not an object (got {type(request).__name__})"
    return packet


def send(sock: socket.socket, reply: Dict[str, Any]) -> None:
    sock.send(json.dumps(reply, allow_nan=False).encode("utf-8"))


def send_request(sock: socket.socket, request: Dict[str, Any], fds: List[int]) -> None:
    if len(fds) > MAX_REQUEST_FDS:
        raise ValueError(f"{len(fds)} descriptors in one request (at most {MAX_REQUEST_FDS})")
    rest = list(fds)
    while len(rest) > FDS_PER_PACKET:
        socket.send_fds(sock, [b'{"op":"fds"}'], rest[:FDS_PER_PACKET])
        rest = rest[FDS_PER_PACKET:]
    data = json.dumps(request, allow_nan=False).encode("utf-8")
    if rest:
        socket.send_fds(sock, [data], rest)
    else:
        sock.send(data)
