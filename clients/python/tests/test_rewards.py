"""kjudge.rewards: extraction from LLM answers (pure), and rewards from a real kjudge-server with a
real compile-only worker (conftest.py's `cluster`; `idle` has no worker, for the deadline)."""

from __future__ import annotations

import math
import uuid

import pytest

import kjudge
from kjudge import rewards
from kjudge.rewards import DEFAULT_SHAPING, RewardShaping, extract_code, score_completions

RELU = "level1/19_ReLU"
KERNEL = '/* kjudge-plan\nk<<<1, 32>>>(X, Y, M * N);\n*/\nextern "C" __global__ void k(const float* X, float* Y, long long n) {}\n'


# ---- extraction (no server) ----

def test_extract_from_a_cuda_fence_with_prose_around_it():
    answer = f"Here is my kernel:\n\n```cuda\n{KERNEL}```\n\nIt uses one block."
    assert extract_code(answer) == KERNEL


@pytest.mark.parametrize("lang", ["cpp", "c++", "cu", "CUDA", "", "cuda title=relu.cu"])
def test_extract_from_each_code_language(lang):
    assert extract_code(f"```{lang}\n{KERNEL}```") == KERNEL


def test_extract_bare_code_and_nothing_from_prose():
    assert extract_code(KERNEL) == KERNEL
    assert extract_code("I cannot write this kernel.") is None
    assert extract_code("```python\nprint('no kernel')\n```") is None
    assert extract_code("```cuda\n\n```") is None


def test_extract_takes_the_last_kernel_and_skips_the_reasoning():
    draft = KERNEL.replace("k(", "draft(")
    answer = f"<think>maybe\n```cuda\n{draft}```\n</think>First try:\n```cuda\n{draft}```\nBetter:\n```cuda\n{KERNEL}```\n```bash\nnvcc x.cu\n```"
    assert extract_code(answer) == KERNEL


def test_extract_an_unterminated_fence_and_a_plan_in_another_block():
    assert extract_code(f"```cuda\n{KERNEL}") == KERNEL  # a generation cut off at max tokens
    plan, body = KERNEL.split("*/\n", 1)
    answer = f"Plan:\n```\n{plan}*/\n```\nKernel:\n```cuda\n{body}```"
    assert extract_code(answer) == plan + "*/\n" + body


def test_completion_text_reads_chat_messages():
    assert rewards.completion_text([{"role": "assistant", "content": "x"}]) == "x"
    assert rewards.completion_text({"role": "assistant", "content": "y"}) == "y"
    assert rewards.completion_text("z") == "z"


def test_shaping_orders_outcomes_and_a_correct_kernel_beats_every_failure():
    s = DEFAULT_SHAPING
    assert s.no_code < s.compile_error < s.incorrect < s.compiled < s.correct
    assert s.suspicious <= s.no_code
    worst_correct = max(s.min_correct, s.correct - s.speedup_weight * s.max_log_speedup)
    assert worst_correct > max(s.compiled, s.incorrect, s.unfinished)


# ---- against a real server ----

@pytest.fixture()
def kj(cluster):
    with kjudge.Client(cluster.address, api_key=cluster.keys["submitter"]) as client:
        yield client


def test_score_completions_gives_one_reward_per_completion_in_order(kj, relu_source, broken_source):
    tags = {"run": uuid.uuid4().hex[:12], "step": "3"}
    completions = [
        f"Sure! Here's a fast ReLU:\n```cuda\n{relu_source}```\nDone.",  # fenced: extracted
        relu_source,                                                    # bare
        f"```cpp\n{broken_source}```",                                  # does not compile
        "I am not sure how to do this.",                                # no code: never submitted
        [{"role": "assistant", "content": f"```cu\n{relu_source}```"}],  # a chat completion
    ]
    results = score_completions(kj, RELU, completions, tags=tags, compile_only=True, deadline=120)
    assert [r.outcome for r in results] == ["judged", "judged", "judged", "no_code", "judged"], results
    assert [r.verdict for r in results] == [kjudge.Verdict.COMPILED, kjudge.Verdict.COMPILED,
                                           kjudge.Verdict.COMPILE_ERROR, None, kjudge.Verdict.COMPILED]
    s = DEFAULT_SHAPING
    assert [r.reward for r in results] == [s.compiled, s.compiled, s.compile_error, s.no_code, s.compiled]
    # The batch's tags are on every job it submitted, and nothing else was submitted.
    jobs = list(kj.iter_jobs(tags=tags))
    assert sorted(j.id for j in jobs) == sorted(r.job_id for r in results if r.job_id)
    assert all(j.tags == tags for j in jobs)


def test_what_is_judged_is_the_extracted_code_not_the_markdown(kj, relu_source):
    key = f"{uuid.uuid4().hex[:12]}/0"
    job = kj.submit(RELU, relu_source, compile_only=True, idempotency_key=key)
    # The same key with a different request would be refused (AlreadyExists): the same job back
    # means the fenced answer was submitted as exactly relu_source.
    result = score_completions(kj, RELU, [f"```cuda\n{relu_source}```"], compile_only=True,
                               idempotency_keys=[key], deadline=120)[0]
    assert result.outcome == "judged" and result.job_id == job.id


def test_custom_shaping_and_idempotency_keys_judge_nothing_twice(kj, relu_source):
    run = uuid.uuid4().hex[:12]
    shaping = RewardShaping(compiled=0.25)
    keys = [f"{run}/0/0"]
    first = score_completions(kj, [RELU], [relu_source], shaping=shaping, compile_only=True,
                              idempotency_keys=keys, tags={"run": run}, deadline=120)
    again = score_completions(kj, [RELU], [relu_source], shaping=shaping, compile_only=True,
                              idempotency_keys=keys, tags={"run": run}, deadline=120)
    assert first[0].reward == again[0].reward == 0.25
    assert first[0].job_id == again[0].job_id


def test_a_deadline_returns_what_finished_and_cancels_the_rest(idle, relu_source):
    with kjudge.Client(idle.address) as kj:  # no worker: nothing finishes
        results = score_completions(kj, RELU, [relu_source, "no code"], compile_only=True, deadline=1.0)
        assert [r.outcome for r in results] == ["unfinished", "no_code"]
        assert results[0].reward == DEFAULT_SHAPING.unfinished and "deadline" in results[0].error
        job = kj.get_job(results[0].job_id)
        assert job.done and job.verdict == kjudge.Verdict.CANCELLED


def test_an_unknown_problem_is_a_refusal_not_an_exception(kj, relu_source):
    results = score_completions(kj, "level1/no_such_problem", [relu_source], compile_only=True, deadline=30)
    assert results[0].outcome == "refused" and results[0].reward == DEFAULT_SHAPING.unfinished
    assert "no_such_problem" in results[0].error


def test_correct_reward_grows_with_log_speedup():
    s = DEFAULT_SHAPING
    assert s.correct + s.speedup_weight * math.log(2.0) > s.correct > s.correct + s.speedup_weight * math.log(0.8)


def test_each_frameworks_signature(kj, cluster, relu_source):
    fence = f"```cuda\n{relu_source}```"
    trl = rewards.trl_reward_function(client=kj, compile_only=True, deadline=120)
    assert trl(prompts=["p", "p"], completions=[fence, "nothing"], problem=[RELU, RELU]) == \
        [DEFAULT_SHAPING.compiled, DEFAULT_SHAPING.no_code]
    with pytest.raises(KeyError, match="problem"):
        trl(prompts=["p"], completions=[fence])
    verl = rewards.verl_compute_score(server=cluster.address, api_key=cluster.keys["submitter"],
                                      compile_only=True, deadline=120)
    assert verl("kernelbench", fence, RELU, {}) == DEFAULT_SHAPING.compiled
    assert verl(data_sources=["k"], solution_strs=["nothing"], ground_truths=[RELU],
                extra_infos=[{}]) == [DEFAULT_SHAPING.no_code]
    orlhf = rewards.openrlhf_reward_func(client=kj, compile_only=True, deadline=120)
    out = orlhf(queries=["PROMPT" + fence], prompts=["PROMPT"], labels=[RELU])
    assert [float(x) for x in out["rewards"]] == pytest.approx([DEFAULT_SHAPING.compiled])
    assert set(out) == {"rewards", "scores", "extra_logs"}


@pytest.mark.parametrize("example", ["rewards_trl.py", "rewards_verl.py", "rewards_openrlhf.py"])
def test_each_frameworks_example_runs(cluster, example):
    # The documented example files themselves, as their --demo runs them (compile-only jobs).
    import os
    import subprocess
    import sys
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "examples" / example
    env = dict(os.environ, KJUDGE_SERVER=cluster.address, KJUDGE_API_KEY=cluster.keys["submitter"])
    run = subprocess.run([sys.executable, str(path), "--server", cluster.address, "--demo"]
                         if example == "rewards_trl.py" else [sys.executable, str(path), "--demo"],
                         env=env, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    assert "0.1" in run.stdout, run.stdout


def test_the_asyncio_version_gives_the_same_rewards(cluster, relu_source, broken_source):
    import asyncio

    async def run():
        async with kjudge.AsyncClient(cluster.address, api_key=cluster.keys["submitter"]) as akj:
            return await rewards.ascore_completions(
                akj, RELU, [f"```cuda\n{relu_source}```", broken_source, ""], compile_only=True,
                deadline=120, tags={"run": uuid.uuid4().hex[:12]})

    results = asyncio.run(run())
    assert [r.verdict for r in results] == [kjudge.Verdict.COMPILED, kjudge.Verdict.COMPILE_ERROR, None]
    s = DEFAULT_SHAPING
    assert [r.reward for r in results] == [s.compiled, s.compile_error, s.no_code]


def test_the_asyncio_version_cancels_at_its_deadline(idle, relu_source):
    import asyncio

    async def run():
        async with kjudge.AsyncClient(idle.address) as akj:
            return await rewards.ascore_completions(akj, RELU, [relu_source], compile_only=True, deadline=1.0)

    result = asyncio.run(run())[0]
    assert result.outcome == "unfinished" and result.job is not None
    assert result.job.verdict == kjudge.Verdict.CANCELLED
