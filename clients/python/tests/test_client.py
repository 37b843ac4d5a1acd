"""The synchronous client against a real kjudge-server and compile-only worker (conftest.py)."""

from __future__ import annotations

import subprocess
import threading
import time
import uuid
from pathlib import Path

import grpc
import pytest

import kjudge
from kjudge.v1 import kjudge_pb2

RELU = "level1/19_ReLU"


def run_tag() -> dict:
    """A tag no other test uses, so list and stats see only this test's jobs."""
    return {"run": uuid.uuid4().hex[:12]}


@pytest.fixture()
def kj(cluster):
    with kjudge.Client(cluster.address, api_key=cluster.keys["submitter"]) as client:
        yield client


def test_installed_package_has_generated_stubs_and_enums_match_the_proto():
    # The stubs are generated at install time, never taken from the source tree.
    stub_file = Path(kjudge_pb2.__file__).resolve()
    assert "site-packages" in stub_file.parts, stub_file
    assert [v.value for v in kjudge.Verdict] == [n for n in kjudge_pb2.Verdict.keys() if n != "VERDICT_UNSPECIFIED"]
    assert [s.value for s in kjudge.JobState] == [n for n in kjudge_pb2.JobState.keys() if n != "JOB_STATE_UNSPECIFIED"]
    assert [s.value for s in kjudge.Stage] == list(kjudge_pb2.Stage.keys())


def test_problems_and_a_problem_with_its_prompt(kj):
    summaries = {p.name: p for p in kj.problems()}
    names = set(summaries)
    assert RELU in names and len(names) > 10
    assert summaries[RELU].needs_pytorch is False  # it has a CUDA reference
    problem = kj.problem(RELU)
    assert problem.level == 1
    assert "ReLU" in problem.prompt or "relu" in problem.prompt.lower()
    assert "kjudge-plan" in problem.starter_file
    assert {t.name for t in problem.tensors} >= {"X", "Y"}
    assert problem.test_shapes and problem.bench_shapes


def test_submit_then_wait_gives_compiled(kj, relu_source):
    tags = run_tag()
    job = kj.submit(RELU, relu_source, compile_only=True, tags=tags, filename="relu.cu")
    assert job.id and job.problem == RELU and job.tags == tags
    assert job.idempotency_key.startswith("py-"), "a key is chosen so that retries are safe"
    done = kj.wait(job.id, timeout=60)
    assert done.state == kjudge.JobState.DONE and done.verdict == kjudge.Verdict.COMPILED
    assert done.ok and done.exit_code == 0 and done.compile_only


def test_submit_reads_a_path(kj):
    job = kj.submit(RELU, Path(__file__).resolve().parents[3] / "problems/level1/19_ReLU/solution.cu",
                    compile_only=True)
    done = kj.wait(job.id, timeout=60)
    assert done.verdict == "COMPILED"
    assert done.proto.result.verdict == kjudge_pb2.COMPILED, "the raw message is there too"
    assert done.proto.result.compile_ms > 0


def test_evaluate_sends_the_job_id_first_and_returns_the_verdict(kj, broken_source):
    seen = []
    job = kj.evaluate(RELU, broken_source, compile_only=True, on_job_id=seen.append, timeout=60)
    assert seen == [job.id]
    assert job.verdict == kjudge.Verdict.COMPILE_ERROR and not job.ok and job.exit_code == 1
    assert "error" in job.compile_log and "submission.cu(" in job.compile_log


def test_evaluate_past_its_deadline_names_the_job_which_keeps_running(idle, relu_source):
    with kjudge.Client(idle.address) as kj:  # no worker: the job stays queued
        key = f"deadline-{uuid.uuid4().hex}"
        with pytest.raises(kjudge.DeadlineExceeded) as raised:
            kj.evaluate(RELU, relu_source, compile_only=True, idempotency_key=key, timeout=1.0)
        job_id = raised.value.job_id
        assert job_id, "the job id came as initial metadata before the deadline"
        assert raised.value.exit_code == 4
        assert kj.get_job(job_id).state == kjudge.JobState.QUEUED
        # Evaluating again with the same key follows the same job instead of queueing another.
        with pytest.raises(kjudge.DeadlineExceeded) as again:
            kj.evaluate(RELU, relu_source, compile_only=True, idempotency_key=key, timeout=0.5)
        assert again.value.job_id == job_id
        assert kj.cancel(job_id).verdict == kjudge.Verdict.CANCELLED


def test_batch_answers_in_order_with_jobs_and_errors(kj, relu_source, broken_source):
    tags = run_tag()
    submissions = [
        kjudge.Submission(RELU, relu_source, compile_only=True, tags=tags),
        kjudge.Submission(RELU, broken_source, compile_only=True, tags=tags),
        kjudge.Submission("level1/no_such_problem", relu_source, compile_only=True, tags=tags),
        kjudge.Submission(RELU, relu_source + "\n// two\n", compile_only=True, tags=tags),
    ]
    items = kj.submit_batch(submissions)
    assert len(items) == 4
    assert items[0].job is not None and items[0].error is None
    assert isinstance(items[2].error, kjudge.NotFound) and items[2].job is None
    assert items[2].error.field == "problem"
    ids = [item.job_id for item in items if item.job is not None]
    final = kj.wait_many(ids, timeout=60)
    assert [final[i].verdict for i in ids] == ["COMPILED", "COMPILE_ERROR", "COMPILED"]


def test_watch_many_streams_changes_until_all_are_done(kj, relu_source):
    ids = [kj.submit(RELU, relu_source + f"\n// watch {i}\n", compile_only=True).id for i in range(3)]
    seen = {}
    for job in kj.watch_many(ids, timeout=60):
        seen.setdefault(job.id, []).append(job.state)
    assert set(seen) == set(ids)
    for states in seen.values():
        assert states[-1] == kjudge.JobState.DONE
        assert states.count(kjudge.JobState.DONE) == 1, "the stream ends each job at DONE"
    watched = list(kj.watch(ids[0], timeout=30))
    assert watched[-1].verdict == "COMPILED", "watching a finished job gives it once"


def test_list_jobs_filters_and_pages_newest_first(kj, relu_source):
    tags = run_tag()
    ids = [kj.submit(RELU, relu_source, compile_only=True, tags=tags).id for _ in range(3)]
    page = kj.list_jobs(tags=tags, page_size=2)
    assert [j.id for j in page.jobs] == [ids[2], ids[1]] and page.next_page_token
    assert [j.id for j in kj.iter_jobs(tags=tags, page_size=2)] == ids[::-1]
    kj.wait_many(ids, timeout=60)
    assert len(kj.list_jobs(tags=tags, state="DONE").jobs) == 3
    assert kj.list_jobs(tags=tags, state=kjudge.JobState.QUEUED).jobs == ()
    with pytest.raises(kjudge.InvalidArgument) as raised:
        kj.list_jobs(state="SLEEPING")
    assert raised.value.field == "state"


def test_cancel_a_queued_job_then_a_finished_one(idle, relu_source):
    with kjudge.Client(idle.address) as kj:
        job = kj.submit(RELU, relu_source, compile_only=True)
        assert job.state == kjudge.JobState.QUEUED
        cancelled = kj.cancel(job.id)
        assert cancelled.verdict == kjudge.Verdict.CANCELLED and cancelled.done
        with pytest.raises(kjudge.FailedPrecondition) as raised:
            kj.cancel(job.id)
        assert raised.value.exit_code == 2


def test_stats_count_judged_jobs_under_a_tag(kj):
    tags = run_tag()
    # A source without a launch plan is REJECTED at once, a finished and judged (not compile-only) job.
    rejected = kj.submit(RELU, "extern \"C\" __global__ void f() {}", tags=tags)
    assert rejected.verdict == kjudge.Verdict.REJECTED and "launch plan" in rejected.message
    stats = kj.stats(tags=tags)
    assert stats.jobs == 1 and stats.compiled == 0 and stats.compile_rate == 0.0
    assert stats.verdicts == {"REJECTED": 1}
    assert set(stats.fast_p) == {0.0, 0.5, 0.8, 1.0, 1.5, 2.0}
    # Per problem (KernelBench): one problem, judged, not correct; pass@1 only (one job).
    assert stats.per_problem is not None and stats.per_problem.problems == 1 and stats.per_problem.correctness == 0.0
    assert stats.per_problem.pass_at_k == {1: 0.0} and stats.per_problem.geomean_speedup is None
    # Nothing at all: n/a (None), not zeros.
    empty = kj.stats(tags=run_tag())
    assert empty.jobs == 0 and empty.compile_rate is None and empty.correctness_rate is None
    assert empty.geomean_speedup is None and empty.fast_p == {} and empty.per_problem is None
    # The run's problem set: the unsubmitted problem counts as a failure; an unknown name is refused.
    with_set = kj.stats(tags=tags, problem_set=[RELU, "level1/23_Softmax"])
    assert with_set.per_problem.problems == 2 and with_set.per_problem.unsubmitted_problems == ("level1/23_Softmax",)
    with pytest.raises(kjudge.errors.InvalidArgument, match="not a problem of this server"):
        kj.stats(problem_set=["level1/nope"])


def test_the_same_idempotency_key_gives_the_same_job(kj, relu_source, broken_source):
    tags = run_tag()
    key = f"ep7/s3/{uuid.uuid4().hex}"
    first = kj.submit(RELU, relu_source, compile_only=True, tags=tags, idempotency_key=key)
    second = kj.submit(RELU, relu_source, compile_only=True, tags=tags, idempotency_key=key)
    assert first.id == second.id and second.idempotency_key == key
    assert len(kj.list_jobs(tags=tags).jobs) == 1
    with pytest.raises(kjudge.AlreadyExists) as raised:
        kj.submit(RELU, broken_source, compile_only=True, tags=tags, idempotency_key=key)
    assert raised.value.field == "idempotency_key"


def test_retries_wait_out_the_rate_limit_without_duplicates(limited, relu_source):
    tags = run_tag()
    with kjudge.Client(limited.address, retry=kjudge.NO_RETRY) as kj:
        refused = None
        for i in range(6):
            try:
                kj.submit(RELU, relu_source, compile_only=True, tags={"run": "burst"})
            except kjudge.RefusedForNow as e:
                refused = e
                break
        assert refused is not None, "a burst over the limit is refused"
        assert refused.retry_after and refused.retry_after > 0 and refused.exit_code == 5
    with kjudge.Client(limited.address, retry=kjudge.RetryPolicy(attempts=20, max_backoff=1.0)) as kj:
        jobs = [kj.submit(RELU, relu_source + f"\n// {i}\n", compile_only=True, tags=tags) for i in range(4)]
        items = kj.submit_batch([kjudge.Submission(RELU, relu_source, compile_only=True, tags=tags) for _ in range(4)])
        assert all(item.job is not None for item in items), [item.error for item in items]
        ids = [j.id for j in jobs] + [item.job_id for item in items]
        assert len(set(ids)) == 8
        assert len(kj.list_jobs(tags=tags).jobs) == 8, "every retry reused its key: nothing queued twice"


def test_errors_map_to_classes_with_the_field(kj, cluster, relu_source):
    with pytest.raises(kjudge.NotFound) as raised:
        kj.submit("level1/19_ReLUU", relu_source)
    assert raised.value.field == "problem" and raised.value.exit_code == 2
    assert "unknown problem" in raised.value.message
    with pytest.raises(kjudge.InvalidArgument) as raised:
        kj.submit("", relu_source)
    assert raised.value.field == "problem"
    with pytest.raises(kjudge.InvalidArgument) as raised:
        kj.submit(RELU, relu_source, tags={"bad key!": "x"})
    assert raised.value.field == "tags" and "byte offset" in raised.value.message
    with pytest.raises(kjudge.InvalidArgument) as raised:
        kj.get_job("twelve")
    assert raised.value.field == "job_id"
    with pytest.raises(kjudge.NotFound) as raised:
        kj.get_job(987654321)
    assert raised.value.field == "job_id"
    with pytest.raises(kjudge.NotFound) as raised:
        kj.problem("level9/none")
    assert raised.value.field == "problem"
    with pytest.raises(kjudge.InvalidArgument):
        list(kj.watch_many([]))


def test_keys_and_roles(cluster):
    with kjudge.Client(cluster.address, api_key="") as anonymous:
        with pytest.raises(kjudge.Unauthenticated) as raised:
            anonymous.problems()
        assert raised.value.exit_code == 6
    with kjudge.Client(cluster.address, api_key="kj_not_a_key") as wrong:
        with pytest.raises(kjudge.PermissionDenied):
            wrong.problems()
    with kjudge.Client(cluster.address, api_key=cluster.create_key("worker")) as worker:
        with pytest.raises(kjudge.PermissionDenied) as raised:
            worker.problems()
        assert raised.value.code == grpc.StatusCode.PERMISSION_DENIED


def test_unreachable_after_retries_with_backoff():
    with kjudge.Client("127.0.0.1:1", retry=kjudge.RetryPolicy(attempts=3, initial_backoff=0.2), timeout=5) as kj:
        start = time.monotonic()
        with pytest.raises(kjudge.Unreachable) as raised:
            kj.problems()
        assert time.monotonic() - start >= 0.2, "two backoffs of at least 0.1 s and 0.2 s"
        assert raised.value.exit_code == 3


def test_tls_with_the_servers_certificate(tmp_path):
    from conftest import Deployment

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    d = Deployment("tls", ["--tls-cert", str(cert), "--tls-key", str(key)])
    try:
        d.start_server()
        with kjudge.Client(d.address, tls_ca=cert) as kj:
            assert any(p.name == RELU for p in kj.problems())
        with kjudge.Client(d.address, retry=kjudge.NO_RETRY, timeout=5) as plaintext:
            with pytest.raises(kjudge.Unreachable):
                plaintext.problems()
        with pytest.raises(kjudge.InvalidArgument) as raised:
            kjudge.Client(d.address, tls_ca=tmp_path / "missing.pem")
        assert raised.value.field == "tls_ca" and "missing.pem" in raised.value.message
    finally:
        d.stop()


def test_one_client_shared_by_threads(kj, relu_source):
    tags = run_tag()
    results = []

    def evaluate(i: int) -> None:
        results.append(kj.evaluate(RELU, relu_source + f"\n// thread {i % 2}\n", compile_only=True, tags=tags,
                                   timeout=60))

    threads = [threading.Thread(target=evaluate, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8 and all(j.verdict == "COMPILED" for j in results)


def test_evaluate_and_watch_ride_out_a_server_restart_without_a_second_job(relu_source):
    from conftest import Deployment

    d = Deployment("restart", [])
    try:
        d.start_server()  # no worker yet: the job waits in the queue
        patient = kjudge.RetryPolicy(attempts=40, initial_backoff=0.1, max_backoff=0.5)
        with kjudge.Client(d.address, retry=patient) as kj:
            tags = run_tag()
            ids, results = [], {}
            watched = kj.submit(RELU, relu_source + "\n// watched\n", compile_only=True, tags=tags)

            def evaluate() -> None:
                results["evaluate"] = kj.evaluate(RELU, relu_source, compile_only=True, tags=tags,
                                                  on_job_id=ids.append, timeout=90)

            def watch() -> None:
                results["watch"] = list(kj.watch(watched.id, timeout=90))

            threads = [threading.Thread(target=evaluate), threading.Thread(target=watch)]
            for t in threads:
                t.start()
            for _ in range(200):
                if ids:
                    break
                time.sleep(0.05)
            assert ids, "evaluate got its job id before the server went down"
            time.sleep(0.3)  # the watch is open too
            d.kill_server()
            time.sleep(0.5)  # both calls see UNAVAILABLE and back off
            d.start_server()
            d.start_worker()
            for t in threads:
                t.join(timeout=120)
            job = results["evaluate"]
            assert job.id == ids[0] and ids == [job.id], "the retry found the first job by its key"
            assert job.verdict == kjudge.Verdict.COMPILED
            assert results["watch"][-1].verdict == kjudge.Verdict.COMPILED
            assert len(kj.list_jobs(tags=tags).jobs) == 2, "nothing was queued twice"
    finally:
        d.stop()


def test_retry_policy_backs_off_honours_retry_after_and_never_resends_what_it_must_not():
    policy = kjudge.RetryPolicy(attempts=4, initial_backoff=0.1, max_backoff=1.0, multiplier=2.0)
    refused = kjudge.RefusedForNow("rate limit", retry_after=2.5)
    assert 2.5 <= policy.delay(0, refused) <= 2.5 * 1.25, "never sooner than the server's retry-after-ms"
    # Pushback is "later", not "no": retried past `attempts`, for refused_for seconds.
    assert policy.delay(10, refused, waited=30.0) is not None, "RESOURCE_EXHAUSTED outlasts the attempt count"
    assert policy.delay(10, refused, waited=601.0) is None, "until refused_for (600 s) has passed"
    assert 0.2 <= policy.delay(2, kjudge.Unreachable("down")) <= 0.4, "0.1 s doubling (0.4 s), jitter x0.5..1"
    assert policy.delay(3, kjudge.Unreachable("down")) is None, "4 tries in all"
    assert policy.delay(0, kjudge.Unreachable("down"), may_resend=False) is None
    assert policy.delay(0, kjudge.RefusedForNow("cap"), may_resend=False) is not None, "nothing was done: safe"
    assert policy.delay(0, kjudge.InvalidArgument("source: empty", field="source")) is None
    assert kjudge.NO_RETRY.delay(0, refused) is None
    big = kjudge.RetryPolicy(attempts=30, initial_backoff=0.1, max_backoff=1.0)
    assert big.delay(20, kjudge.Unreachable("down")) <= 1.0, "capped at max_backoff"


def test_job_source_for_the_owner_and_admins_not_for_other_tenants(kj, cluster, relu_source):
    job = kj.submit(RELU, relu_source, compile_only=True, filename="mine.cu")
    source = kj.job_source(job.id)
    assert isinstance(source, kjudge.JobSource)
    assert source.job_id == job.id and source.filename == "mine.cu"
    assert source.source == relu_source, "byte for byte as submitted"
    assert "relu_vec4<<<" in source.launch_plan, "the plan taken from the source's kjudge-plan block"
    with kjudge.Client(cluster.address, api_key=cluster.keys["admin"]) as admin:
        assert admin.job_source(int(job.id)).source == relu_source
    with kjudge.Client(cluster.address, api_key=cluster.create_key("submitter")) as other:
        with pytest.raises(kjudge.NotFound) as raised:
            other.job_source(job.id)
        assert raised.value.field == "job_id" and f"no job {job.id}" in raised.value.message
    with pytest.raises(kjudge.NotFound):
        kj.job_source(987654321)
    rejected = kj.submit(RELU, "__global__ void k() {}\n", filename="noplan.cu")
    assert rejected.verdict == kjudge.Verdict.REJECTED
    assert kj.job_source(rejected.id).source == "__global__ void k() {}\n", "a REJECTED job keeps its source"
