"""The synchronous kjudge client.

    with kjudge.Client("127.0.0.1:50051") as kj:
        job = kj.evaluate("level1/19_ReLU", Path("relu.cu"))
        print(job.verdict, job.message)

Every method raises a kjudge.errors.KjudgeError subclass on failure. Calls refused for now or
that cannot reach the server are retried per the RetryPolicy; submissions always carry an
idempotency key (yours, or a fresh one per submission), so a retry returns the job of the first
try instead of queueing a second one. One Client may be shared by threads.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

import grpc

from . import _core, errors
from .types import BatchItem, Job, JobPage, JobSource, JobState, Problem, ProblemSummary, Stats, Submission, WaitResult
from .v1 import kjudge_pb2 as pb
from .v1 import kjudge_pb2_grpc as pb_grpc

__all__ = ["Client"]


class Client:
    """A connection to kjudge-server's ClientService (blocking calls).

    server: "host:port" (default $KJUDGE_SERVER, else 127.0.0.1:50051). api_key: sent as
    "authorization: Bearer KEY" (default $KJUDGE_API_KEY). tls_ca: PEM file to trust (turns TLS
    on); tls=True: TLS with the system's roots. retry: a RetryPolicy (kjudge.NO_RETRY: none).
    timeout: seconds for each short call (evaluate, watch and wait take their own).
    """

    def __init__(
        self,
        server: Optional[str] = None,
        *,
        api_key: Optional[str] = None,
        tls_ca: Union[str, "os.PathLike[str]", None] = None,
        tls: bool = False,
        retry: Optional[_core.RetryPolicy] = None,
        timeout: Optional[float] = 30.0,
    ) -> None:
        self._settings = _core.Settings.make(server, api_key, tls_ca, tls, retry, timeout)
        s = self._settings
        if s.credentials is not None:
            self._channel = grpc.secure_channel(s.server, s.credentials, options=_core.CHANNEL_OPTIONS)
        else:
            self._channel = grpc.insecure_channel(s.server, options=_core.CHANNEL_OPTIONS)
        self._stub = pb_grpc.ClientServiceStub(self._channel)
        self._evaluate = _core.evaluate_as_stream(self._channel)

    @property
    def server(self) -> str:
        return self._settings.server

    def __repr__(self) -> str:
        # The key redacted: a client ends up in logs and tracebacks.
        return f"Client(server={self._settings.server!r}, api_key={_core.redact_key(self._settings.api_key)!r})"

    def close(self) -> None:
        """Closes the channel; calls in flight end with an error."""
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- plumbing ----

    def _unary(self, method: Callable, request: object, *, may_resend: bool = True, job_id: Optional[str] = None):
        """One unary call with the retry policy; raises the mapped KjudgeError."""
        attempt = 0
        start = time.monotonic()
        while True:
            try:
                return method(request, metadata=self._settings.metadata(), timeout=self._settings.timeout)
            except grpc.RpcError as e:
                error = errors.from_rpc_error(e, job_id=job_id)
                delay = self._settings.retry.delay(attempt, error, may_resend=may_resend,
                                                   waited=time.monotonic() - start)
                if delay is None:
                    raise error from None
                time.sleep(delay)
                attempt += 1

    # ---- problems ----

    def problems(self) -> List[ProblemSummary]:
        """The catalog: name, level and title of every problem."""
        response = self._unary(self._stub.ListProblems, pb.ListProblemsRequest())
        return [ProblemSummary(p.name, p.level, p.title, p.needs_pytorch) for p in response.problems]

    def problem(self, name: str) -> Problem:
        """One problem with its LLM-ready prompt and starter file; NotFound (field "problem")."""
        return Problem.from_proto(self._unary(self._stub.GetProblem, pb.GetProblemRequest(name=name)))

    # ---- submitting ----

    def submit(self, problem: Union[str, Submission], source: Union[str, "os.PathLike[str]", None] = None,
               **options: object) -> Job:
        """Queues one submission and returns its job at once (QUEUED, or DONE when REJECTED).

        problem + source (+ launch_plan, compile_only, tags, filename, public, idempotency_key),
        or a Submission. Bad input: InvalidArgument (.field) or NotFound (unknown problem)."""
        submission = _core.make_submission(problem, source, options)
        key = _core.idempotency_key_for(submission)
        response = self._unary(self._stub.Submit, submission.to_proto(key))
        return Job.from_proto(response.job)

    def submit_batch(self, submissions: Sequence[Submission]) -> List[BatchItem]:
        """Queues many submissions (sent 100 per call); one BatchItem per submission, in order.

        Items refused for now (rate limit, active-job cap) are resent with their idempotency keys
        per the retry policy; other refusals come back as BatchItem.error."""
        keys = [_core.idempotency_key_for(s) for s in submissions]
        requests = [s.to_proto(k) for s, k in zip(submissions, keys)]
        results: List[Optional[BatchItem]] = [None] * len(requests)
        pending = list(range(len(requests)))
        attempt = 0
        start = time.monotonic()
        while pending:
            for chunk in _core.chunks(pending, _core.MAX_BATCH):
                response = self._unary(self._stub.SubmitBatch, pb.SubmitBatchRequest(requests=[requests[i] for i in chunk]))
                for i, item in zip(chunk, response.items):
                    results[i] = _core.batch_item(item, keys[i])
            refused = [results[i] for i in pending if _core.is_retryable(results[i].error)]  # type: ignore[union-attr]
            delay = _core.batch_retry_delay(self._settings.retry, attempt, refused,  # type: ignore[arg-type]
                                            waited=time.monotonic() - start)
            if delay is None:
                break
            time.sleep(delay)
            attempt += 1
            pending = [i for i in pending if _core.is_retryable(results[i].error)]  # type: ignore[union-attr]
        return results  # type: ignore[return-value]

    def evaluate(self, problem: Union[str, Submission], source: Union[str, "os.PathLike[str]", None] = None, *,
                 timeout: Optional[float] = _core.DEFAULT_EVALUATE_TIMEOUT,
                 on_job_id: Optional[Callable[[str], None]] = None, **options: object) -> Job:
        """Submits and waits in one call; returns the finished job.

        The server sends the job id before it waits: on_job_id(id) is called with it at once. If
        no connected worker can judge the job (e.g. a GPU job with only compile-only workers), a
        kjudge.WaitingWarning (warnings.warn; .job_id, .waiting_reason) says so once, about 1 s
        after submission (the job is looked at then and every 10 s), and the wait goes on. When
        `timeout` (default 3600 s; None: no limit) passes first, DeadlineExceeded is raised with
        .job_id set and a message that says where the job is and, when no connected worker can
        take it, why (.waiting_reason); the job keeps running (wait(job_id) follows it; evaluating
        again with the same idempotency_key returns it)."""
        submission = _core.make_submission(problem, source, options)
        request = submission.to_proto(_core.idempotency_key_for(submission))
        start = time.monotonic()
        deadline = start + timeout if timeout is not None else None
        job_id: Optional[str] = None
        attempt = 0
        while True:
            call = self._evaluate(request, metadata=self._settings.metadata(),
                                  timeout=_core.remaining(deadline, time.monotonic()))
            try:
                sent_id = _core.job_id_from_metadata(call.initial_metadata())
                if sent_id is not None and sent_id != job_id:
                    job_id = sent_id
                    if on_job_id is not None:
                        on_job_id(job_id)
                return _core.the_one_job(self._await_end(call, job_id))
            except grpc.RpcError as e:
                error = errors.from_rpc_error(e, job_id=job_id)
                if isinstance(error, errors.DeadlineExceeded):
                    raise self._unfinished(job_id, timeout) from None
                delay = self._settings.retry.delay(attempt, error, waited=time.monotonic() - start)
                if delay is None or (deadline is not None and time.monotonic() + delay >= deadline):
                    raise error from None
                time.sleep(delay)
                attempt += 1
            except BaseException:
                call.cancel()
                raise

    def _await_end(self, call: Iterator[pb.Job], job_id: Optional[str]) -> List[pb.Job]:
        """Evaluate's messages once the call ends, read on a helper thread; meanwhile, on the
        caller's thread, looks at the job 1 s after it was stored, then every 10 s, and warns once
        (errors.WaitingWarning) if no connected worker can judge it. The call's error is raised here."""
        if job_id is None:
            return list(call)
        outcome: Dict[str, object] = {}
        ended = threading.Event()

        def read() -> None:
            try:
                outcome["messages"] = list(call)
            except BaseException as e:  # noqa: BLE001 - re-raised on the caller's thread
                outcome["error"] = e
            finally:
                ended.set()

        threading.Thread(target=read, name="kjudge-evaluate", daemon=True).start()
        notice = _core.WaitingNotice()
        while not ended.wait(notice.next_delay()):
            notice.look(job_id, self._peek(job_id), stacklevel=3)
        error = outcome.get("error")
        if isinstance(error, BaseException):
            raise error
        messages = outcome.get("messages")
        return messages if isinstance(messages, list) else []

    def _peek(self, job_id: str) -> Optional[Job]:
        """The job now, or None when it cannot be read (evaluate's own call decides the outcome)."""
        try:
            return self.get_job(job_id)
        except errors.KjudgeError:
            return None

    def _unfinished(self, job_id: Optional[str], timeout: Optional[float]) -> errors.DeadlineExceeded:
        """DeadlineExceeded for a job past its deadline, with where it is and why (a fresh look)."""
        job: Optional[Job] = None
        if job_id is not None:
            try:
                job = self.get_job(job_id)
            except errors.KjudgeError:
                job = None
        return _core.unfinished_error(job_id, job, timeout)

    # ---- following jobs ----

    def get_job(self, job_id: Union[str, int]) -> Job:
        """The job as it is now; NotFound (field "job_id") for unknown ids and other tenants' jobs."""
        job_id = str(job_id)
        return Job.from_proto(self._unary(self._stub.GetJob, pb.GetJobRequest(job_id=job_id), job_id=job_id))

    def job_source(self, job_id: Union[str, int]) -> JobSource:
        """The job's source, launch plan and filename as stored (what was judged); NotFound (field
        "job_id") for unknown ids and other tenants' jobs, as get_job."""
        job_id = str(job_id)
        request = pb.GetJobRequest(job_id=job_id)
        return JobSource.from_proto(self._unary(self._stub.GetJobSource, request, job_id=job_id))

    def watch(self, job_id: Union[str, int], *, timeout: Optional[float] = None) -> Iterator[Job]:
        """Yields the job on every change of state, stage or progress; ends after it is DONE."""
        return self.watch_many([str(job_id)], timeout=timeout)

    def watch_many(self, job_ids: Sequence[Union[str, int]], *, timeout: Optional[float] = None) -> Iterator[Job]:
        """Yields a Job whenever one of them changes (one WatchJobs stream per 1000 ids, watched
        one after another); ends once all are DONE. A dropped stream is reopened for the jobs not
        yet done; past `timeout` seconds, DeadlineExceeded."""
        ids = _core.check_job_ids([str(i) for i in job_ids])
        deadline = time.monotonic() + timeout if timeout is not None else None
        for chunk in _core.chunks(ids, _core.MAX_WATCHED):
            yield from self._watch_chunk(list(chunk), deadline)

    def _watch_chunk(self, ids: List[str], deadline: Optional[float]) -> Iterator[Job]:
        open_ids = list(ids)
        attempt = 0
        start = time.monotonic()
        while open_ids:
            stream = self._stub.WatchJobs(pb.WatchJobsRequest(job_ids=open_ids), metadata=self._settings.metadata(),
                                          timeout=_core.remaining(deadline, time.monotonic()))
            try:
                for message in stream:
                    job = Job.from_proto(message)
                    attempt = 0
                    if job.done and job.id in open_ids:
                        open_ids.remove(job.id)
                    yield job
                # The server ends a stream OK once it has sent every job DONE; should one ever end
                # short, the rest are watched again rather than reported unfinished.
                if open_ids:
                    time.sleep(_core.SHORT_STREAM_PAUSE)
            except grpc.RpcError as e:
                error = errors.from_rpc_error(e, job_id=open_ids[0] if len(open_ids) == 1 else None)
                delay = self._settings.retry.delay(attempt, error, waited=time.monotonic() - start)
                if delay is None or (deadline is not None and time.monotonic() + delay >= deadline):
                    raise error from None
                time.sleep(delay)
                attempt += 1
            finally:
                stream.cancel()

    def wait(self, job_id: Union[str, int], *, timeout: Optional[float] = None) -> Job:
        """Blocks until the job is DONE and returns it. After `timeout` s, DeadlineExceeded that
        says where the job is and, when no connected worker can take it, why (.waiting_reason)."""
        job_id = str(job_id)
        result = self.wait_many([job_id], timeout=timeout)
        if job_id in result:
            return result[job_id]
        raise _core.unfinished_error(job_id, result.unfinished.get(job_id), timeout)

    def wait_many(self, job_ids: Sequence[Union[str, int]], *, timeout: Optional[float] = None) -> WaitResult:
        """Blocks until all jobs are DONE, or until `timeout` s; returns the finished ones by id,
        in the order given (a WaitResult: a dict). At the deadline nothing is thrown away: what
        finished is returned, and .unfinished maps each other id to its job as last seen (its
        state, queue position and waiting_reason); .complete says whether all finished."""
        ids = _core.check_job_ids([str(i) for i in job_ids])
        last: Dict[str, Job] = {}
        try:
            for job in self.watch_many(ids, timeout=timeout):
                last[job.id] = job
        except errors.DeadlineExceeded:
            if timeout is None:
                raise
        return _core.wait_result(ids, last)

    # ---- listing, cancelling, stats ----

    def list_jobs(self, *, tags: Optional[Mapping[str, str]] = None, state: Union[JobState, str, None] = None,
                  problem: Optional[str] = None, page_size: Optional[int] = None, page_token: str = "") -> JobPage:
        """One page of your jobs (admins: all), newest first, filtered by tags (all must match),
        state and problem."""
        request = _core.list_jobs_request(tags, state, problem, page_size, page_token)
        response = self._unary(self._stub.ListJobs, request)
        return JobPage(tuple(Job.from_proto(j) for j in response.jobs), response.next_page_token)

    def iter_jobs(self, *, tags: Optional[Mapping[str, str]] = None, state: Union[JobState, str, None] = None,
                  problem: Optional[str] = None, page_size: Optional[int] = None) -> Iterator[Job]:
        """Every matching job, newest first, fetching page after page."""
        token = ""
        while True:
            page = self.list_jobs(tags=tags, state=state, problem=problem, page_size=page_size, page_token=token)
            yield from page.jobs
            if not page.next_page_token:
                return
            token = page.next_page_token

    def cancel(self, job_id: Union[str, int]) -> Job:
        """Ends a queued or running job as CANCELLED; FailedPrecondition when already finished."""
        job_id = str(job_id)
        request = pb.CancelJobRequest(job_id=job_id)
        try:
            return Job.from_proto(self._unary(self._stub.CancelJob, request, may_resend=False, job_id=job_id))
        except errors.Unreachable:
            # The first try may have cancelled it before the connection dropped: look before resending.
            job = self.get_job(job_id)
            return job if job.done else Job.from_proto(self._unary(self._stub.CancelJob, request, job_id=job_id))

    def stats(self, *, tags: Optional[Mapping[str, str]] = None, baseline: Optional[str] = None,
              problem_prefix: Optional[str] = None, public_only: bool = False,
              problem_set: Optional[Sequence[str]] = None, count_unsubmitted: bool = False) -> Stats:
        """Compile rate (judged and compile-only jobs), correctness, fast_p and geomean speedup per
        job, and KernelBench's per-problem metrics with pass@k (.per_problem), all computed by the
        server (docs/metrics.md); None where nothing was measured. problem_set (names) or
        count_unsubmitted (every problem under problem_prefix) is the run's problem set: a problem
        of it with no judged job counts as a failure."""
        request = _core.stats_request(tags, baseline, problem_prefix, public_only, problem_set, count_unsubmitted)
        return Stats.from_proto(self._unary(self._stub.GetStats, request))
