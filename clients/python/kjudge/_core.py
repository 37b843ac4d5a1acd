"""What the synchronous and the asyncio clients share: connection settings, call metadata, the
retry policy, and the requests they build. No I/O happens here."""

from __future__ import annotations

import os
import random
import re
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

import grpc

from . import errors
from .types import BatchItem, Job, JobState, Submission, WaitResult
from .v1 import kjudge_pb2 as pb

DEFAULT_SERVER = "127.0.0.1:50051"
# The most a SubmitBatch and a WatchJobs call take (kjudge.proto); the clients split larger lists.
MAX_BATCH = 100
MAX_WATCHED = 1000
# Seconds before watching again the jobs a stream that ended OK did not send as DONE.
SHORT_STREAM_PAUSE = 0.05
# Replies can carry compile logs and prompts; the CLI allows the same.
CHANNEL_OPTIONS = [("grpc.max_receive_message_length", 64 << 20)]
# evaluate() waits at most this long by default (timeout=None waits without limit): a job that
# no connected worker can take would otherwise wait forever (its Job.waiting_reason says why).
DEFAULT_EVALUATE_TIMEOUT = 3600.0
# evaluate() looks at its job this long after the server stored it, then every WAITING_CHECK_EVERY
# seconds, and warns (errors.WaitingWarning) once if no connected worker can judge it.
WAITING_CHECK_FIRST = 1.0
WAITING_CHECK_EVERY = 10.0


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of calls refused for now (RESOURCE_EXHAUSTED) or that could not reach the server
    (UNAVAILABLE), with exponential backoff and jitter; never sooner than the server's
    retry-after-ms. A submission is retried with the same idempotency key, so it is never queued
    twice. attempts=1 turns retries off.

    Pushback (RESOURCE_EXHAUSTED: rate limit, active-job or stream cap) is the server saying
    "later", not "no": it is retried for up to `refused_for` seconds after the first refusal,
    however many tries that takes, each after the server's retry-after-ms (plus jitter), so a
    burst larger than the server admits at once is spread out, never lost. UNAVAILABLE is retried
    `attempts` times."""

    attempts: int = 6
    initial_backoff: float = 0.1
    max_backoff: float = 5.0
    multiplier: float = 2.0
    refused_for: float = 600.0

    def delay(self, attempt: int, error: errors.KjudgeError, *, may_resend: bool = True,
              waited: float = 0.0) -> Optional[float]:
        """Seconds to wait before try number attempt+2, or None when the error is final.

        may_resend: whether the call may be sent again after UNAVAILABLE (the first one may have
        been done: only idempotent calls may). RESOURCE_EXHAUSTED means nothing was done.
        waited: seconds since the first try (the refused_for budget)."""
        if self.attempts <= 1:
            return None
        if isinstance(error, errors.RefusedForNow):
            if waited >= self.refused_for:
                return None
        elif isinstance(error, errors.Unreachable) and may_resend:
            if attempt + 1 >= self.attempts:
                return None
        else:
            return None
        backoff = min(self.max_backoff, self.initial_backoff * self.multiplier**min(attempt, 16))
        backoff *= random.uniform(0.5, 1.0)  # spread out clients that failed together
        # Never sooner than the server's own delay, spread by up to a quarter so that a burst
        # refused together does not come back together.
        return max(backoff, (error.retry_after or 0.0) * random.uniform(1.0, 1.25))


NO_RETRY = RetryPolicy(attempts=1)


# A key as `kjudge-server keys create` prints it: "kj_<8 hex id>_<secret>". The id is not secret
# (the server names it in PERMISSION_DENIED messages); what follows it is.
_KEY_ID = re.compile(r"kj_[0-9a-f]{8}_")


def redact_key(api_key: str) -> str:
    """An API key as it may be shown (repr, logs, messages): its public id and "***", or "***"
    alone when it does not look like a kjudge key; "" stays "" (no key)."""
    if not api_key:
        return ""
    match = _KEY_ID.match(api_key)
    return f"{match.group(0)}***" if match else "***"


def check_api_key(api_key: str) -> None:
    """Refuses a key gRPC could not send as a header (a space, newline or non-ASCII character,
    e.g. a key read from a file with its newline): gRPC would refuse it later with a message and
    a log line that both quote the whole key. The message gives the offset, never the key."""
    for offset, char in enumerate(api_key):
        if not "!" <= char <= "~":
            raise errors.InvalidArgument(
                f"api_key: a space, control or non-ASCII character at offset {offset}; keys are printable "
                "ASCII as `kjudge-server keys create` prints them (strip the newline of a key read from a file)",
                field="api_key")


@dataclass(frozen=True, repr=False)
class Settings:
    """Where and how to connect; the defaults follow the `kjudge` CLI (KJUDGE_SERVER,
    KJUDGE_API_KEY). tls_ca: a PEM file to trust (TLS on); tls=True alone: TLS with the system's
    roots. timeout: seconds for the short calls (not for evaluate or watches, which wait).

    Its repr shows the key redacted (redact_key): settings end up in logs and tracebacks."""

    server: str
    api_key: str
    credentials: Optional[grpc.ChannelCredentials]
    retry: RetryPolicy
    timeout: Optional[float]

    @classmethod
    def make(
        cls,
        server: Optional[str],
        api_key: Optional[str],
        tls_ca: Union[str, "os.PathLike[str]", None],
        tls: bool,
        retry: Optional[RetryPolicy],
        timeout: Optional[float],
    ) -> "Settings":
        key = api_key if api_key is not None else os.environ.get("KJUDGE_API_KEY", "")
        check_api_key(key)
        credentials = None
        if tls_ca is not None:
            path = Path(tls_ca)
            try:
                pem = path.read_bytes()
            except OSError as e:
                raise errors.InvalidArgument(f"tls_ca: cannot read '{path}': {e.strerror}; pass a PEM file",
                                             field="tls_ca") from None
            credentials = grpc.ssl_channel_credentials(root_certificates=pem)
        elif tls:
            credentials = grpc.ssl_channel_credentials()
        return cls(
            server=server or os.environ.get("KJUDGE_SERVER") or DEFAULT_SERVER,
            api_key=key,
            credentials=credentials,
            retry=retry if retry is not None else RetryPolicy(),
            timeout=timeout,
        )

    def __repr__(self) -> str:
        return (f"Settings(server={self.server!r}, api_key={redact_key(self.api_key)!r}, "
                f"credentials={self.credentials!r}, retry={self.retry!r}, timeout={self.timeout!r})")

    __str__ = __repr__

    def metadata(self) -> Tuple[Tuple[str, str], ...]:
        """Per-call metadata: the API key as the server expects it."""
        return (("authorization", f"Bearer {self.api_key}"),) if self.api_key else ()


def idempotency_key_for(submission: Submission) -> str:
    """The submission's own key, or a fresh random one so that retries are safe."""
    return submission.idempotency_key if submission.idempotency_key else f"py-{uuid.uuid4().hex}"


def make_submission(
    problem: Union[str, Submission],
    source: Union[str, "os.PathLike[str]", None],
    options: Mapping[str, object],
) -> Submission:
    """A Submission from submit()'s arguments: a Submission as is, else problem + source + options."""
    if isinstance(problem, Submission):
        if source is not None or options:
            raise TypeError("pass either a Submission or problem, source and options, not both")
        return problem
    if source is None:
        raise TypeError("source is required: CUDA device code, or a pathlib.Path to a .cu file")
    return Submission(problem, source, **options)  # type: ignore[arg-type]


def list_jobs_request(
    tags: Optional[Mapping[str, str]],
    state: Union[JobState, str, None],
    problem: Optional[str],
    page_size: Optional[int],
    page_token: str,
) -> pb.ListJobsRequest:
    request = pb.ListJobsRequest(tags=dict(tags or {}), problem=problem or "", page_size=page_size or 0,
                                 page_token=page_token)
    if state is not None:
        name = state.value if isinstance(state, JobState) else str(state).upper()
        if name not in JobState.__members__:
            raise errors.InvalidArgument(f"state: '{state}' is not QUEUED, RUNNING or DONE", field="state")
        request.state = pb.JobState.Value(name)
    return request


def stats_request(
    tags: Optional[Mapping[str, str]], baseline: Optional[str], problem_prefix: Optional[str], public_only: bool,
    problem_set: Optional[Sequence[str]] = None, count_unsubmitted: bool = False,
) -> pb.GetStatsRequest:
    """problem_set (names) or count_unsubmitted (every problem under problem_prefix): the run's
    problems for the per-problem metrics; one with no judged job counts as a failure."""
    if isinstance(problem_set, str):
        raise errors.InvalidArgument("problem_set: give a list of problem names, not one string", field="problem_set")
    return pb.GetStatsRequest(tags=dict(tags or {}), baseline=baseline or "", problem_prefix=problem_prefix or "",
                              public_only=public_only, problem_set=list(problem_set or ()),
                              prefix_is_problem_set=count_unsubmitted)


def job_id_from_metadata(metadata: Optional[Sequence[Tuple[str, object]]]) -> Optional[str]:
    """Evaluate's job id, sent as initial metadata "kjudge-job-id" before the server waits."""
    for key, value in metadata or ():
        if key == "kjudge-job-id":
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


def chunks(items: Sequence, size: int) -> List[Sequence]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def remaining(deadline: Optional[float], now: float) -> Optional[float]:
    """Seconds left before an absolute deadline (monotonic clock), or None for no deadline."""
    if deadline is None:
        return None
    return max(0.0, deadline - now)


def check_job_ids(job_ids: Sequence[str]) -> List[str]:
    """Job ids as strings, unique and in order (ints are accepted)."""
    seen: Dict[str, None] = {}
    for job_id in job_ids:
        seen.setdefault(str(job_id), None)
    if not seen:
        raise errors.InvalidArgument("job_ids: empty; pass at least one job id", field="job_ids")
    return list(seen)


def batch_item(item: pb.SubmitBatchItem, key: str) -> BatchItem:
    """A SubmitBatch answer as a BatchItem (job or error)."""
    if item.error_code:
        return BatchItem(job=None, error=errors.from_status_number(item.error_code, item.error), idempotency_key=key)
    return BatchItem(job=Job.from_proto(item.job), error=None, idempotency_key=key)


def batch_retry_delay(policy: RetryPolicy, attempt: int, items: Sequence[BatchItem],
                      waited: float = 0.0) -> Optional[float]:
    """How long to wait before resending a batch's refused-for-now items; None: do not resend.
    Every item carries its idempotency key, so resending one that was in fact queued is harmless."""
    delays: List[float] = []
    for item in items:
        delay = policy.delay(attempt, item.error, waited=waited) if item.error is not None else None
        if delay is not None:
            delays.append(delay)
    return max(delays) if delays else None


def is_retryable(error: Optional[errors.KjudgeError]) -> bool:
    return isinstance(error, (errors.RefusedForNow, errors.Unreachable))


def evaluate_as_stream(channel):
    """Evaluate, called as a server-streaming method. It is unary on the wire, and HTTP/2 frames
    a unary and a server-streaming reply alike; but gRPC Python (sync and aio) receives a unary
    call's initial metadata in the same batch as its reply, so the job id the server sends before
    it waits would reach the caller only with the verdict. A streaming call receives the initial
    metadata on its own, as soon as it arrives."""
    return channel.unary_stream(
        "/kjudge.v1.ClientService/Evaluate",
        request_serializer=pb.SubmitRequest.SerializeToString,
        response_deserializer=pb.Job.FromString,
    )


def the_one_job(messages: Sequence[pb.Job]) -> Job:
    """Evaluate's single reply as a Job."""
    if len(messages) != 1:
        raise errors.ServerError(f"Evaluate answered {len(messages)} messages; expected one finished job")
    return Job.from_proto(messages[0])


class WaitingNotice:
    """evaluate()'s one warning that its job cannot be served (errors.WaitingWarning): when to look
    at the job next, and whether it has warned already."""

    def __init__(self) -> None:
        self.warned = False
        self.checks = 0

    def next_delay(self) -> Optional[float]:
        """Seconds until the next look at the job, None once it has warned."""
        if self.warned:
            return None
        return WAITING_CHECK_FIRST if self.checks == 0 else WAITING_CHECK_EVERY

    def look(self, job_id: str, job: Optional[Job], stacklevel: int) -> None:
        """Warns once when `job` (None: it could not be read) waits with a waiting_reason."""
        self.checks += 1
        if self.warned or job is None or job.state != JobState.QUEUED or not job.waiting_reason:
            return
        self.warned = True
        warnings.warn(errors.WaitingWarning(
            f"kjudge: job {job_id} waits: {job.waiting_reason}; evaluate() keeps waiting until its timeout",
            job_id=job_id, waiting_reason=job.waiting_reason), stacklevel=stacklevel + 1)


def unfinished_error(job_id: Optional[str], job: Optional[Job], timeout: Optional[float]) -> errors.DeadlineExceeded:
    """DeadlineExceeded for a job not finished within `timeout` s, saying where it is and, when no
    connected worker can take it, why (its waiting_reason) and what to do."""
    what = f"job {job_id}" if job_id else "the job"
    waited = f" within {timeout:g} s" if timeout is not None else ""
    where = ""
    if job is not None:
        where = f"; it is {job.state.value.lower()}"
        if job.state == JobState.QUEUED and job.queue_position:
            where += f" (position {job.queue_position})"
    reason = job.waiting_reason if job is not None else ""
    message = f"{what} did not finish{waited}{where}"
    if reason:
        message += f": {reason}"
    message += ". It keeps its place: wait(job_id) follows it, cancel(job_id) ends it; pass timeout= to wait longer"
    error = errors.DeadlineExceeded(message, code=grpc.StatusCode.DEADLINE_EXCEEDED, job_id=job_id)
    error.waiting_reason = reason
    return error


def wait_result(ids: Sequence[str], last: Mapping[str, Job]) -> WaitResult:
    """wait_many's answer from the last job seen of each id."""
    finished = {i: last[i] for i in ids if i in last and last[i].done}
    unfinished = {i: last.get(i) for i in ids if i not in finished}
    return WaitResult(finished, unfinished)
