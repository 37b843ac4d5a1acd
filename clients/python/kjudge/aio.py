"""The asyncio kjudge client (grpc.aio): the same calls as kjudge.Client, awaitable.

    async with kjudge.AsyncClient("127.0.0.1:50051") as kj:
        jobs = await asyncio.gather(*(kj.evaluate("level1/19_ReLU", src) for src in sources))

Create it inside the running event loop. Thousands of calls may be in flight on one client; the
server caps open Evaluate/watch calls per key (--max-streams-per-key, default 256): keep fewer
evaluate() calls in flight than that, or submit and follow them on one watch_many() stream.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import time
from typing import AsyncIterator, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Union

import grpc
import grpc.aio

from . import _core, errors
from .types import BatchItem, Job, JobPage, JobSource, JobState, Problem, ProblemSummary, Stats, Submission, WaitResult
from .v1 import kjudge_pb2 as pb
from .v1 import kjudge_pb2_grpc as pb_grpc

__all__ = ["AsyncClient"]

JobIdCallback = Callable[[str], Union[None, Awaitable[None]]]


class AsyncClient:
    """A connection to kjudge-server's ClientService for asyncio; arguments as kjudge.Client."""

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
            self._channel = grpc.aio.secure_channel(s.server, s.credentials, options=_core.CHANNEL_OPTIONS)
        else:
            self._channel = grpc.aio.insecure_channel(s.server, options=_core.CHANNEL_OPTIONS)
        self._stub = pb_grpc.ClientServiceStub(self._channel)
        self._evaluate = _core.evaluate_as_stream(self._channel)

    @property
    def server(self) -> str:
        return self._settings.server

    def __repr__(self) -> str:
        # The key redacted: a client ends up in logs and tracebacks.
        return f"AsyncClient(server={self._settings.server!r}, api_key={_core.redact_key(self._settings.api_key)!r})"

    async def close(self) -> None:
        """Closes the channel; calls in flight end with an error."""
        await self._channel.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- plumbing ----

    async def _unary(self, method: Callable, request: object, *, may_resend: bool = True,
                     job_id: Optional[str] = None):
        """One unary call with the retry policy; raises the mapped KjudgeError."""
        attempt = 0
        start = time.monotonic()
        while True:
            try:
                return await method(request, metadata=self._settings.metadata(), timeout=self._settings.timeout)
            except grpc.aio.AioRpcError as e:
                error = errors.from_rpc_error(e, job_id=job_id)
                delay = self._settings.retry.delay(attempt, error, may_resend=may_resend,
                                                   waited=time.monotonic() - start)
                if delay is None:
                    raise error from None
                await asyncio.sleep(delay)
                attempt += 1

    # ---- problems ----

    async def problems(self) -> List[ProblemSummary]:
        """The catalog: name, level and title of every problem."""
        response = await self._unary(self._stub.ListProblems, pb.ListProblemsRequest())
        return [ProblemSummary(p.name, p.level, p.title, p.needs_pytorch) for p in response.problems]

    async def problem(self, name: str) -> Problem:
        """One problem with its LLM-ready prompt and starter file; NotFound (field "problem")."""
        return Problem.from_proto(await self._unary(self._stub.GetProblem, pb.GetProblemRequest(name=name)))

    # ---- submitting ----

    async def submit(self, problem: Union[str, Submission], source: Union[str, "os.PathLike[str]", None] = None,
                     **options: object) -> Job:
        """Queues one submission and returns its job at once; see Client.submit."""
        submission = _core.make_submission(problem, source, options)
        key = _core.idempotency_key_for(submission)
        response = await self._unary(self._stub.Submit, submission.to_proto(key))
        return Job.from_proto(response.job)

    async def submit_batch(self, submissions: Sequence[Submission]) -> List[BatchItem]:
        """Queues many submissions (100 per call); one BatchItem each, in order; see Client.submit_batch."""
        keys = [_core.idempotency_key_for(s) for s in submissions]
        requests = [s.to_proto(k) for s, k in zip(submissions, keys)]
        results: List[Optional[BatchItem]] = [None] * len(requests)
        pending = list(range(len(requests)))
        attempt = 0
        start = time.monotonic()
        while pending:
            for chunk in _core.chunks(pending, _core.MAX_BATCH):
                response = await self._unary(self._stub.SubmitBatch,
                                             pb.SubmitBatchRequest(requests=[requests[i] for i in chunk]))
                for i, item in zip(chunk, response.items):
                    results[i] = _core.batch_item(item, keys[i])
            refused = [results[i] for i in pending if _core.is_retryable(results[i].error)]  # type: ignore[union-attr]
            delay = _core.batch_retry_delay(self._settings.retry, attempt, refused,  # type: ignore[arg-type]
                                            waited=time.monotonic() - start)
            if delay is None:
                break
            await asyncio.sleep(delay)
            attempt += 1
            pending = [i for i in pending if _core.is_retryable(results[i].error)]  # type: ignore[union-attr]
        return results  # type: ignore[return-value]

    async def evaluate(self, problem: Union[str, Submission], source: Union[str, "os.PathLike[str]", None] = None, *,
                       timeout: Optional[float] = _core.DEFAULT_EVALUATE_TIMEOUT,
                       on_job_id: Optional[JobIdCallback] = None, **options: object) -> Job:
        """Submits and waits in one call; returns the finished job. on_job_id(id) (a function or a
        coroutine function) gets the job id as soon as the server has stored the job; a
        kjudge.WaitingWarning, once, when no connected worker can judge it (see Client.evaluate); past
        `timeout` (default 3600 s; None: no limit), DeadlineExceeded with .job_id, where the job is
        and why no worker took it (.waiting_reason). See Client.evaluate."""
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
                sent_id = _core.job_id_from_metadata(await call.initial_metadata())
                if sent_id is not None and sent_id != job_id:
                    job_id = sent_id
                    if on_job_id is not None:
                        result = on_job_id(job_id)
                        if inspect.isawaitable(result):
                            await result
                return _core.the_one_job(await self._await_end(call, job_id))
            except grpc.aio.AioRpcError as e:
                error = errors.from_rpc_error(e, job_id=job_id)
                if isinstance(error, errors.DeadlineExceeded):
                    raise (await self._unfinished(job_id, timeout)) from None
                delay = self._settings.retry.delay(attempt, error, waited=time.monotonic() - start)
                if delay is None or (deadline is not None and time.monotonic() + delay >= deadline):
                    raise error from None
                await asyncio.sleep(delay)
                attempt += 1
            except BaseException:
                call.cancel()
                raise

    async def _await_end(self, call: grpc.aio.UnaryStreamCall, job_id: Optional[str]) -> List[pb.Job]:
        """Evaluate's messages once the call ends; meanwhile looks at its job 1 s after it was stored,
        then every 10 s, and warns once (errors.WaitingWarning) if no connected worker can judge it."""
        async def messages() -> List[pb.Job]:
            return [message async for message in call]

        if job_id is None:
            return await messages()
        collect = asyncio.ensure_future(messages())
        notice = _core.WaitingNotice()
        try:
            while True:
                done, _ = await asyncio.wait({collect}, timeout=notice.next_delay())
                if done:
                    return collect.result()
                notice.look(job_id, await self._peek(job_id), stacklevel=3)
        finally:
            if not collect.done():
                collect.cancel()

    async def _peek(self, job_id: str) -> Optional[Job]:
        """The job now, or None when it cannot be read (evaluate's own call decides the outcome)."""
        try:
            return await self.get_job(job_id)
        except errors.KjudgeError:
            return None

    async def _unfinished(self, job_id: Optional[str], timeout: Optional[float]) -> errors.DeadlineExceeded:
        """DeadlineExceeded for a job past its deadline, with where it is and why (a fresh look)."""
        job: Optional[Job] = None
        if job_id is not None:
            try:
                job = await self.get_job(job_id)
            except errors.KjudgeError:
                job = None
        return _core.unfinished_error(job_id, job, timeout)

    # ---- following jobs ----

    async def get_job(self, job_id: Union[str, int]) -> Job:
        """The job as it is now; NotFound (field "job_id") for unknown ids and other tenants' jobs."""
        job_id = str(job_id)
        return Job.from_proto(await self._unary(self._stub.GetJob, pb.GetJobRequest(job_id=job_id), job_id=job_id))

    async def job_source(self, job_id: Union[str, int]) -> JobSource:
        """The job's source, launch plan and filename as stored (what was judged); NotFound (field
        "job_id") for unknown ids and other tenants' jobs, as get_job."""
        job_id = str(job_id)
        request = pb.GetJobRequest(job_id=job_id)
        return JobSource.from_proto(await self._unary(self._stub.GetJobSource, request, job_id=job_id))

    def watch(self, job_id: Union[str, int], *, timeout: Optional[float] = None) -> AsyncIterator[Job]:
        """Yields the job on every change; ends after it is DONE."""
        return self.watch_many([str(job_id)], timeout=timeout)

    async def watch_many(self, job_ids: Sequence[Union[str, int]], *,
                         timeout: Optional[float] = None) -> AsyncIterator[Job]:
        """Yields a Job whenever one of them changes; ends once all are DONE. More than 1000 ids
        are watched on several WatchJobs streams at once; a dropped stream is reopened for the
        jobs not yet done; past `timeout` seconds, DeadlineExceeded."""
        ids = _core.check_job_ids([str(i) for i in job_ids])
        deadline = time.monotonic() + timeout if timeout is not None else None
        chunks = _core.chunks(ids, _core.MAX_WATCHED)
        if len(chunks) == 1:
            async for job in self._watch_chunk(list(chunks[0]), deadline):
                yield job
            return
        queue: "asyncio.Queue[Union[Job, BaseException, None]]" = asyncio.Queue()

        async def pump(chunk: List[str]) -> None:
            try:
                async for job in self._watch_chunk(chunk, deadline):
                    await queue.put(job)
                await queue.put(None)
            except BaseException as e:  # noqa: BLE001 - handed to the consumer below
                await queue.put(e)

        tasks = [asyncio.ensure_future(pump(list(c))) for c in chunks]
        try:
            open_streams = len(tasks)
            while open_streams:
                item = await queue.get()
                if item is None:
                    open_streams -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield item
        finally:
            for task in tasks:
                task.cancel()

    async def _watch_chunk(self, ids: List[str], deadline: Optional[float]) -> AsyncIterator[Job]:
        open_ids = list(ids)
        attempt = 0
        start = time.monotonic()
        while open_ids:
            stream = self._stub.WatchJobs(pb.WatchJobsRequest(job_ids=open_ids), metadata=self._settings.metadata(),
                                          timeout=_core.remaining(deadline, time.monotonic()))
            try:
                async for message in stream:
                    job = Job.from_proto(message)
                    attempt = 0
                    if job.done and job.id in open_ids:
                        open_ids.remove(job.id)
                    yield job
                # The server ends a stream OK once it has sent every job DONE; should one ever end
                # short, the rest are watched again rather than reported unfinished.
                if open_ids:
                    await asyncio.sleep(_core.SHORT_STREAM_PAUSE)
            except grpc.aio.AioRpcError as e:
                error = errors.from_rpc_error(e, job_id=open_ids[0] if len(open_ids) == 1 else None)
                delay = self._settings.retry.delay(attempt, error, waited=time.monotonic() - start)
                if delay is None or (deadline is not None and time.monotonic() + delay >= deadline):
                    raise error from None
                await asyncio.sleep(delay)
                attempt += 1
            finally:
                stream.cancel()

    async def wait(self, job_id: Union[str, int], *, timeout: Optional[float] = None) -> Job:
        """Waits until the job is DONE and returns it; past `timeout` s, DeadlineExceeded that says
        where it is and why no worker took it (see Client.wait)."""
        job_id = str(job_id)
        result = await self.wait_many([job_id], timeout=timeout)
        if job_id in result:
            return result[job_id]
        raise _core.unfinished_error(job_id, result.unfinished.get(job_id), timeout)

    async def wait_many(self, job_ids: Sequence[Union[str, int]], *,
                        timeout: Optional[float] = None) -> WaitResult:
        """Waits until all jobs are DONE, or until `timeout` s; returns what finished, by id in the
        order given, with .unfinished for the rest (see Client.wait_many)."""
        ids = _core.check_job_ids([str(i) for i in job_ids])
        last: Dict[str, Job] = {}
        try:
            async for job in self.watch_many(ids, timeout=timeout):
                last[job.id] = job
        except errors.DeadlineExceeded:
            if timeout is None:
                raise
        return _core.wait_result(ids, last)

    # ---- listing, cancelling, stats ----

    async def list_jobs(self, *, tags: Optional[Mapping[str, str]] = None,
                        state: Union[JobState, str, None] = None, problem: Optional[str] = None,
                        page_size: Optional[int] = None, page_token: str = "") -> JobPage:
        """One page of your jobs (admins: all), newest first; see Client.list_jobs."""
        request = _core.list_jobs_request(tags, state, problem, page_size, page_token)
        response = await self._unary(self._stub.ListJobs, request)
        return JobPage(tuple(Job.from_proto(j) for j in response.jobs), response.next_page_token)

    async def iter_jobs(self, *, tags: Optional[Mapping[str, str]] = None,
                        state: Union[JobState, str, None] = None, problem: Optional[str] = None,
                        page_size: Optional[int] = None) -> AsyncIterator[Job]:
        """Every matching job, newest first, fetching page after page."""
        token = ""
        while True:
            page = await self.list_jobs(tags=tags, state=state, problem=problem, page_size=page_size,
                                        page_token=token)
            for job in page.jobs:
                yield job
            if not page.next_page_token:
                return
            token = page.next_page_token

    async def cancel(self, job_id: Union[str, int]) -> Job:
        """Ends a queued or running job as CANCELLED; FailedPrecondition when already finished."""
        job_id = str(job_id)
        request = pb.CancelJobRequest(job_id=job_id)
        try:
            return Job.from_proto(await self._unary(self._stub.CancelJob, request, may_resend=False, job_id=job_id))
        except errors.Unreachable:
            job = await self.get_job(job_id)
            return job if job.done else Job.from_proto(await self._unary(self._stub.CancelJob, request, job_id=job_id))

    async def stats(self, *, tags: Optional[Mapping[str, str]] = None, baseline: Optional[str] = None,
                    problem_prefix: Optional[str] = None, public_only: bool = False,
                    problem_set: Optional[Sequence[str]] = None, count_unsubmitted: bool = False) -> Stats:
        """Compile rate, correctness, fast_p and geomean speedup; see Client.stats."""
        request = _core.stats_request(tags, baseline, problem_prefix, public_only, problem_set, count_unsubmitted)
        return Stats.from_proto(await self._unary(self._stub.GetStats, request))
