"""Exceptions raised by the kjudge client, one class per thing a caller can act on.

Every failed call raises a KjudgeError subclass, mapped from the gRPC status code the same way the
`kjudge` CLI maps it to an exit code (docs/client_api.md):

    InvalidArgument, NotFound, AlreadyExists, FailedPrecondition  (BadRequest)  exit code 2
    Unreachable, ServerError                                                     exit code 3
    DeadlineExceeded (the job may still finish: .job_id when known)             exit code 4
    RefusedForNow (rate limit, active-job or stream cap; .retry_after seconds)   exit code 5
    PermissionDenied, Unauthenticated                                            exit code 6

`field` names the request field at fault where the server says (INVALID_ARGUMENT messages start
with "field: ..."; an unknown problem is NOT_FOUND on `problem`, an unknown job on `job_id`).
"""

from __future__ import annotations

import re
from typing import Iterable, Optional, Tuple

import grpc

__all__ = [
    "KjudgeError",
    "BadRequest",
    "InvalidArgument",
    "NotFound",
    "AlreadyExists",
    "FailedPrecondition",
    "PermissionDenied",
    "Unauthenticated",
    "RefusedForNow",
    "Unreachable",
    "DeadlineExceeded",
    "ServerError",
    "WaitingWarning",
    "from_status",
    "from_rpc_error",
]


class WaitingWarning(UserWarning):
    """Warned (warnings.warn), once per evaluate() call, when the job waits because no connected
    worker can judge it (e.g. a GPU job with only compile-only workers): .job_id and
    .waiting_reason say which job and why. evaluate() goes on waiting until its timeout; to stop at
    once, turn it into an error: warnings.simplefilter("error", kjudge.WaitingWarning)."""

    def __init__(self, message: str, *, job_id: str, waiting_reason: str) -> None:
        super().__init__(message)
        self.job_id = job_id
        self.waiting_reason = waiting_reason


class KjudgeError(Exception):
    """A kjudge call failed.

    Attributes: message (the server's words), code (grpc.StatusCode or None for client-side
    errors), field (the request field at fault, or None), retry_after (seconds the server asked to
    wait, or None), job_id (the job the call was about, when known), exit_code (the CLI's).
    """

    exit_code = 3

    def __init__(
        self,
        message: str,
        *,
        code: Optional[grpc.StatusCode] = None,
        field: Optional[str] = None,
        retry_after: Optional[float] = None,
        job_id: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.field = field
        self.retry_after = retry_after
        self.job_id = job_id

    def __str__(self) -> str:
        code = f"{self.code.name}: " if self.code is not None else ""
        job = f" (job {self.job_id})" if self.job_id else ""
        return f"{code}{self.message}{job}"


class BadRequest(KjudgeError):
    """The request itself is wrong; sending it again will fail again. Fix the input."""

    exit_code = 2


class InvalidArgument(BadRequest):
    """INVALID_ARGUMENT: a malformed field (see .field); nothing was stored."""


class NotFound(BadRequest):
    """NOT_FOUND: an unknown problem (.field == "problem") or job (.field == "job_id")."""


class AlreadyExists(BadRequest):
    """ALREADY_EXISTS: the idempotency key was used before for a different request."""


class FailedPrecondition(BadRequest):
    """FAILED_PRECONDITION: e.g. cancelling a job that is already finished."""


class PermissionDenied(KjudgeError):
    """PERMISSION_DENIED: the API key may not do this (wrong role, another tenant's resource)."""

    exit_code = 6


class Unauthenticated(PermissionDenied):
    """UNAUTHENTICATED: no API key, or an unknown or revoked one (pass api_key= or KJUDGE_API_KEY)."""


class RefusedForNow(KjudgeError):
    """RESOURCE_EXHAUSTED: rate limit, active-job cap or stream cap; retry after .retry_after s."""

    exit_code = 5


class Unreachable(KjudgeError):
    """UNAVAILABLE: the server could not be reached (or went away mid-call)."""


class DeadlineExceeded(KjudgeError):
    """DEADLINE_EXCEEDED: the call's timeout passed. A job keeps running: follow .job_id.
    .waiting_reason: when the job was still queued because no connected worker can take it,
    the server's words for why (Job.waiting_reason), else ""."""

    exit_code = 4
    waiting_reason: str = ""


class ServerError(KjudgeError):
    """Any other status (INTERNAL, UNKNOWN, ...): the server failed."""


_CLASSES = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.OUT_OF_RANGE: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.RESOURCE_EXHAUSTED: RefusedForNow,
    grpc.StatusCode.UNAVAILABLE: Unreachable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
}

# The most of a server's (or gRPC's) message an exception keeps: a reply is not trusted to be
# short, and a message is printed whole by tracebacks and logs.
MAX_MESSAGE_CHARS = 2000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def cap_message(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """A server message fit to show: control characters other than tab and newline as '?' (no
    terminal escapes), and at most `limit` characters, then " ... [N bytes cut]" (N: UTF-8 bytes, as the CLI)."""
    message = _CONTROL.sub("?", message)
    if len(message) <= limit:
        return message
    cut = len(message[limit:].encode("utf-8", errors="replace"))
    return f"{message[:limit]} ... [{cut} bytes cut]"


# grpc.StatusCode by its number (SubmitBatchItem.error_code carries the number).
_CODES_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}

# "source: invalid UTF-8 ...", "tags[model]: ...", "requests: 101 items ...".
_FIELD_PREFIX = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\[\]]*): ")


def _field_of(code: grpc.StatusCode, message: str) -> Optional[str]:
    """The request field a server message is about, or None when it names none."""
    if code == grpc.StatusCode.NOT_FOUND:
        if message.startswith("unknown problem"):
            return "problem"
        if message.startswith("no job"):
            return "job_id"
        return None
    if code == grpc.StatusCode.ALREADY_EXISTS and message.startswith("idempotency_key"):
        return "idempotency_key"
    if code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE):
        match = _FIELD_PREFIX.match(message)
        return match.group(1) if match else None
    return None


def _retry_after(trailing: Optional[Iterable[Tuple[str, object]]]) -> Optional[float]:
    """The server's retry-after-ms trailer in seconds, or None when absent or unreadable."""
    for key, value in trailing or ():
        if key == "retry-after-ms":
            text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
            try:
                return int(text) / 1000.0
            except ValueError:
                return None
    return None


def from_status(
    code: grpc.StatusCode,
    message: str,
    *,
    trailing: Optional[Iterable[Tuple[str, object]]] = None,
    job_id: Optional[str] = None,
) -> KjudgeError:
    """The exception for a status code and message (trailing metadata gives retry_after)."""
    cls = _CLASSES.get(code, ServerError)
    message = cap_message(message)
    return cls(message, code=code, field=_field_of(code, message), retry_after=_retry_after(trailing), job_id=job_id)


def from_status_number(number: int, message: str) -> KjudgeError:
    """The exception for a numeric status code, as SubmitBatchItem.error_code carries it."""
    return from_status(_CODES_BY_NUMBER.get(number, grpc.StatusCode.UNKNOWN), message)


def from_rpc_error(error: grpc.RpcError, *, job_id: Optional[str] = None) -> KjudgeError:
    """The exception for a failed call (grpc.RpcError or grpc.aio.AioRpcError)."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = error.details() if hasattr(error, "details") else str(error)
    try:
        trailing = error.trailing_metadata()
    except Exception:  # noqa: BLE001 - some error objects carry none
        trailing = None
    return from_status(code or grpc.StatusCode.UNKNOWN, details or "", trailing=trailing, job_id=job_id)
