"""The asyncio client against a real kjudge-server and compile-only worker (conftest.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import kjudge

RELU = "level1/19_ReLU"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples/agent_loop.py"


def test_many_evaluations_in_flight_on_one_client(cluster, relu_source, broken_source):
    tags = {"run": uuid.uuid4().hex[:12]}

    async def main():
        ids = []
        async with kjudge.AsyncClient(cluster.address, api_key=cluster.keys["submitter"]) as kj:

            async def record(job_id: str) -> None:  # a coroutine callback is awaited
                ids.append(job_id)

            # 64 at once: every 8th does not compile; 4 distinct good sources (cubin cache hits).
            sources = [broken_source if i % 8 == 7 else relu_source + f"\n// {i % 4}\n" for i in range(64)]
            jobs = await asyncio.gather(*(kj.evaluate(RELU, s, compile_only=True, tags=tags, on_job_id=record,
                                                      timeout=120) for s in sources))
            listed = [j async for j in kj.iter_jobs(tags=tags, page_size=50)]
        return ids, jobs, listed

    ids, jobs, listed = asyncio.run(main())
    assert [j.verdict for j in jobs] == ["COMPILE_ERROR" if i % 8 == 7 else "COMPILED" for i in range(64)]
    assert sorted(ids) == sorted(j.id for j in jobs) and len(set(ids)) == 64
    assert len(listed) == 64, "one job per evaluation, none duplicated"


def test_async_batch_watch_list_cancel_stats_problems(cluster, idle, relu_source):
    tags = {"run": uuid.uuid4().hex[:12]}

    async def main():
        async with kjudge.AsyncClient(cluster.address, api_key=cluster.keys["submitter"]) as kj:
            problem = await kj.problem(RELU)
            assert problem.prompt and RELU in {p.name for p in await kj.problems()}
            items = await kj.submit_batch([kjudge.Submission(RELU, problem.starter_file, compile_only=True, tags=tags)
                                           for _ in range(3)])
            ids = [item.job_id for item in items]
            assert all(ids)
            updates = [job async for job in kj.watch_many(ids, timeout=60)]
            final = {j.id: j for j in updates if j.done}
            assert set(final) == set(ids) and all(j.verdict == "COMPILED" for j in final.values())
            assert (await kj.wait(ids[0], timeout=30)).verdict == "COMPILED"
            page = await kj.list_jobs(tags=tags, state="DONE")
            assert sorted(j.id for j in page.jobs) == sorted(ids)
            rejected = await kj.submit(RELU, "extern \"C\" __global__ void f() {}", tags=tags)
            stats = await kj.stats(tags=tags)
            assert rejected.verdict == "REJECTED" and stats.verdicts == {"COMPILED": 3, "REJECTED": 1}
            # The compile-only jobs count in the compile rate only (docs/metrics.md).
            assert stats.jobs == 1 and stats.compile_only_jobs == 3 and stats.compile_rate == 0.75
            with pytest.raises(kjudge.NotFound) as raised:
                await kj.evaluate("level1/nope", relu_source, compile_only=True)
            assert raised.value.field == "problem"
        async with kjudge.AsyncClient(idle.address) as kj:  # no worker there: jobs stay queued
            job = await kj.submit(RELU, relu_source, compile_only=True)
            assert (await kj.cancel(job.id)).verdict == kjudge.Verdict.CANCELLED
            with pytest.raises(kjudge.FailedPrecondition):
                await kj.cancel(job.id)
            # The job id arrives while the job waits; cancelling it ends the evaluation.
            got_id: "asyncio.Future[str]" = asyncio.get_running_loop().create_future()
            evaluation = asyncio.ensure_future(kj.evaluate(RELU, relu_source, compile_only=True, timeout=60,
                                                           on_job_id=got_id.set_result))
            job_id = await asyncio.wait_for(got_id, timeout=10)
            assert (await kj.get_job(job_id)).state == kjudge.JobState.QUEUED and not evaluation.done()
            await kj.cancel(job_id)
            ended = await asyncio.wait_for(evaluation, timeout=10)
            assert ended.id == job_id and ended.verdict == kjudge.Verdict.CANCELLED and ended.exit_code == 1
            seen = []
            with pytest.raises(kjudge.DeadlineExceeded) as raised:
                await kj.evaluate(RELU, relu_source, compile_only=True, timeout=1.0, on_job_id=seen.append)
            assert raised.value.job_id == seen[0]
            with pytest.raises(kjudge.DeadlineExceeded):
                await kj.wait(seen[0], timeout=0.5)
            await kj.cancel(seen[0])

    asyncio.run(main())


def test_the_example_agent_loop_runs(cluster):
    env = dict(os.environ, KJUDGE_API_KEY=cluster.keys["submitter"])
    run = subprocess.run([sys.executable, str(EXAMPLE), "--server", cluster.address, "--count", "24", "--in-flight", "8",
                          "--compile-only", "--run", f"example-{uuid.uuid4().hex[:8]}"],
                         capture_output=True, text=True, timeout=180, env=env, cwd="/", check=False)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["judged"] == 24 and summary["most_in_flight"] == 8
    assert set(summary["verdicts"]) <= {"COMPILED", "COMPILE_ERROR"} and summary["verdicts"]["COMPILED"] > 0
    assert sum(summary["verdicts"].values()) == 24
    assert summary["best"]["verdict"] == "COMPILED" and summary["best"]["reward"] == 0.1


def test_job_source_is_awaitable(cluster, relu_source):
    async def main():
        async with kjudge.AsyncClient(cluster.address, api_key=cluster.keys["submitter"]) as kj:
            job = await kj.submit(RELU, relu_source, compile_only=True)
            return await kj.job_source(job.id)

    source = asyncio.run(main())
    assert source.source == relu_source and source.filename == "submission.cu"
