"""Issue 27 points 4 and 5 against a real kjudge-server and a real compile-only kjudge-worker:
no silent waiting (a job no connected worker can take says why, within 2 s of submission, in the
API, the Python client and the CLI; deadlines say where a job is), and defaults sized for RL (512
submissions from one key at once, all accepted and judged under the server's default settings)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
import urllib.request
import uuid
import warnings
from pathlib import Path

import pytest

import kjudge
from conftest import Deployment, _binary, _free_port

RELU = "level1/19_ReLU"
NO_GPU_REASON = ("no connected worker can judge this job: 1 compile-only worker; "
                 "submit with --compile-only or start a GPU worker")


@pytest.fixture(scope="module")
def rl():
    """The server's DEFAULT settings (auth on, so that every submission is one key's), one
    compile-only worker, registered before the tests start."""
    d = Deployment("rl", ["--require-auth"])
    d.start_server()
    d.create_key("submitter")
    d.start_worker(d.create_key("worker"))
    for _ in range(600):
        if "registered with" in d.log("worker.log"):
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the worker did not register:\n{d.log('worker.log')}")
    yield d
    d.stop()


def test_a_gpu_job_with_only_a_compile_only_worker_says_why_within_2_s(rl, relu_source):
    with kjudge.Client(rl.address, api_key=rl.keys["submitter"]) as kj:
        start = time.monotonic()
        job = kj.submit(RELU, relu_source, tags={"t": "no-gpu"})  # a GPU job: nobody here can time it
        assert job.waiting_reason == NO_GPU_REASON, "Submit's answer says so already"
        assert time.monotonic() - start < 2.0
        assert kj.get_job(job.id).waiting_reason == NO_GPU_REASON
        watched = next(iter(kj.watch(job.id, timeout=5)))
        assert watched.waiting_reason == NO_GPU_REASON, "the watch stream says so too"
        listed = [j for j in kj.list_jobs(tags={"t": "no-gpu"}).jobs if j.id == job.id]
        assert listed and listed[0].waiting_reason == NO_GPU_REASON
        # A compile-only job can be taken: no reason; it is judged.
        compiled = kj.submit(RELU, relu_source, compile_only=True)
        assert compiled.waiting_reason == ""
        assert kj.wait(compiled.id, timeout=60).verdict == kjudge.Verdict.COMPILED
        # Waiting past a deadline says where the job is and why.
        with pytest.raises(kjudge.DeadlineExceeded) as raised:
            kj.wait(job.id, timeout=1.0)
        assert raised.value.job_id == job.id
        assert raised.value.waiting_reason == NO_GPU_REASON
        assert "is queued" in raised.value.message and NO_GPU_REASON in raised.value.message
        with pytest.raises(kjudge.DeadlineExceeded) as evaluated:
            kj.evaluate(RELU, relu_source, timeout=1.0)
        assert evaluated.value.waiting_reason == NO_GPU_REASON, str(evaluated.value)
        kj.cancel(evaluated.value.job_id)
        # The CLI: `kjudge job N` and `kjudge job N --wait` print it.
        cli = [_binary("kjudge", "KJUDGE_CLI_BIN"), "--server", rl.address, "--api-key", rl.keys["submitter"]]
        shown = subprocess.run(cli + ["job", job.id], capture_output=True, text=True, timeout=30, check=False)
        assert NO_GPU_REASON in shown.stdout, shown
        waited = subprocess.run(cli + ["job", job.id, "--wait", "--timeout", "2"], capture_output=True, text=True,
                                timeout=30, check=False)
        assert waited.returncode == 4, waited
        assert f"kjudge: job {job.id} waits: {NO_GPU_REASON}" in waited.stderr, waited.stderr
        # The dashboard's job page (it reads the same database).
        page = dashboard_job_page(rl, job.id)
        assert 'id="waiting-reason"' in page and NO_GPU_REASON in page, page[-2000:]
        kj.cancel(job.id)


def _no_worker_warnings(record) -> list:
    return [w.message for w in record if issubclass(w.category, kjudge.WaitingWarning)]


def test_evaluate_warns_once_within_2_s_that_no_worker_can_judge_its_job(rl, relu_source):
    # Issue 27 point 4: evaluate() does not sit silent until its deadline. The warning comes from
    # the look 1 s after submission, so a 2.5 s evaluate has given it before its DeadlineExceeded.
    with kjudge.Client(rl.address, api_key=rl.keys["submitter"]) as kj:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            with pytest.raises(kjudge.DeadlineExceeded) as raised:
                kj.evaluate(RELU, relu_source, timeout=2.5)
        told = _no_worker_warnings(record)
        assert len(told) == 1, [str(w.message) for w in record]
        assert told[0].job_id == raised.value.job_id and told[0].waiting_reason == NO_GPU_REASON
        assert f"job {raised.value.job_id} waits: {NO_GPU_REASON}" in str(told[0])
        assert record[0].filename == __file__, "the warning points at the caller's evaluate() line"
        kj.cancel(raised.value.job_id)
        # As an error (the documented filter) it ends evaluate() at once, naming the job.
        start = time.monotonic()
        with warnings.catch_warnings():
            warnings.simplefilter("error", kjudge.WaitingWarning)
            with pytest.raises(kjudge.WaitingWarning) as stopped:
                kj.evaluate(RELU, relu_source, timeout=60)
        assert time.monotonic() - start < 5.0 and stopped.value.waiting_reason == NO_GPU_REASON
        kj.cancel(stopped.value.job_id)
        # A job a connected worker can take warns nothing.
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            assert kj.evaluate(RELU, relu_source, compile_only=True, timeout=120).verdict == kjudge.Verdict.COMPILED
        assert not _no_worker_warnings(record)


def test_async_evaluate_warns_once_within_2_s_that_no_worker_can_judge_its_job(rl, relu_source):
    async def evaluate():
        async with kjudge.AsyncClient(rl.address, api_key=rl.keys["submitter"]) as kj:
            try:
                await kj.evaluate(RELU, relu_source, timeout=2.5)
            except kjudge.DeadlineExceeded as e:
                await kj.cancel(e.job_id)  # type: ignore[arg-type]
                return e
            pytest.fail("a GPU job finished with only a compile-only worker")

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        raised = asyncio.run(evaluate())
    told = _no_worker_warnings(record)
    assert len(told) == 1, [str(w.message) for w in record]
    assert told[0].job_id == raised.job_id and told[0].waiting_reason == NO_GPU_REASON


def test_the_waiting_notice_warns_once():
    # The bookkeeping behind "once": a job still waiting at every later look warns no more.
    notice = kjudge._core.WaitingNotice()
    job = kjudge.Job.from_proto(kjudge._core.pb.Job(id="5", state=kjudge._core.pb.QUEUED, waiting_reason="why"))
    assert notice.next_delay() == kjudge._core.WAITING_CHECK_FIRST
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        notice.look("5", None, stacklevel=1)  # unreadable: no warning, looks again later
        assert notice.next_delay() == kjudge._core.WAITING_CHECK_EVERY
        notice.look("5", job, stacklevel=1)
        notice.look("5", job, stacklevel=1)
    assert len(_no_worker_warnings(record)) == 1 and notice.next_delay() is None


def dashboard_job_page(d: Deployment, job_id: str) -> str:
    """Starts kjudge-dashboard on the deployment's database and returns /jobs/JOB_ID's HTML."""
    port = _free_port()
    d._spawn([_binary("kjudge-dashboard", "KJUDGE_DASHBOARD_BIN"), "--db", str(d.db), "--problems",
              str(Path(__file__).resolve().parents[3] / "problems"), "--listen", f"127.0.0.1:{port}"],
             "dashboard.log")
    for _ in range(200):
        if "kjudge-dashboard: http" in d.log("dashboard.log"):
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the dashboard did not start:\n{d.log('dashboard.log')}")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/jobs/{job_id}", timeout=10) as response:
        return response.read().decode()


def test_wait_many_returns_what_finished_at_the_deadline_and_says_what_did_not(rl, relu_source):
    with kjudge.Client(rl.address, api_key=rl.keys["submitter"]) as kj:
        done = kj.submit(RELU, relu_source, compile_only=True)
        stuck = kj.submit(RELU, relu_source)  # a GPU job: never taken here
        result = kj.wait_many([done.id, stuck.id], timeout=10)
        assert list(result) == [done.id] and result[done.id].verdict == kjudge.Verdict.COMPILED
        assert not result.complete and list(result.unfinished) == [stuck.id]
        assert result.unfinished[stuck.id].state == kjudge.JobState.QUEUED
        assert result.unfinished[stuck.id].waiting_reason == NO_GPU_REASON
        kj.cancel(stuck.id)


def test_512_submissions_from_one_key_at_once_are_all_accepted_and_judged(rl, relu_source):
    # One asyncio burst of 512 single Submit calls (as an RL step submits its completions), then a
    # batch of 128 through submit_batch, from one key, under the server's default limits.
    run = uuid.uuid4().hex[:12]

    async def burst():
        # No client retries: the server's defaults alone must take the whole burst.
        async with kjudge.AsyncClient(rl.address, api_key=rl.keys["submitter"], retry=kjudge.NO_RETRY) as kj:
            start = time.monotonic()
            jobs = await asyncio.gather(*(
                kj.submit(RELU, relu_source, compile_only=True, tags={"run": run, "i": str(i)})
                for i in range(512)))
            return jobs, time.monotonic() - start

    jobs, took = asyncio.run(burst())
    assert len({j.id for j in jobs}) == 512, "every submission got its own job"
    with kjudge.Client(rl.address, api_key=rl.keys["submitter"]) as kj:
        items = kj.submit_batch([kjudge.Submission(RELU, relu_source, compile_only=True,
                                                   tags={"run": run, "b": str(i)}) for i in range(128)])
        errors = [item.error for item in items if item.error is not None]
        assert not errors, errors[:3]
        ids = [j.id for j in jobs] + [item.job.id for item in items]  # type: ignore[union-attr]
        assert len(set(ids)) == 640
        result = kj.wait_many(ids, timeout=900)
        assert result.complete, f"{len(result.unfinished)} of 640 unfinished"
        verdicts = {job.verdict for job in result.values()}
        assert verdicts == {kjudge.Verdict.COMPILED}, verdicts
    print(f"512 single submissions accepted in {took:.2f} s")


def test_the_client_waits_out_pushback_without_losing_a_job(limited, relu_source):
    # 2 submissions per second, bursts of 2 (the `limited` server): 12 at once from asyncio are
    # all queued by the default RetryPolicy, which keeps honouring retry-after-ms (about 5 s in
    # all here; the old policy gave up after 6 tries, about 3 s), each exactly once.
    tags = {"run": uuid.uuid4().hex[:12]}

    async def burst():
        async with kjudge.AsyncClient(limited.address) as kj:
            return await asyncio.gather(*(kj.submit(RELU, relu_source, compile_only=True, tags=tags)
                                          for _ in range(12)))

    jobs = asyncio.run(burst())
    assert len({j.id for j in jobs}) == 12
    with kjudge.Client(limited.address) as kj:
        assert len(kj.list_jobs(tags=tags).jobs) == 12, "nothing queued twice, nothing lost"
