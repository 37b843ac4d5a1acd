"""kjudge.rewards: completions in, rewards out, for RL loops (TRL, verl, OpenRLHF, your own).

    from kjudge.rewards import score_completions
    with kjudge.Client("127.0.0.1:50051") as kj:
        results = score_completions(kj, ["level1/19_ReLU"] * 4, llm_answers, tags={"step": "12"})
        rewards = [r.reward for r in results]

Contract:
  * extract_code(answer) takes an LLM's answer as written (Markdown fences ```cuda / ```cpp /
    ```c++ / ```cu / ``` / ~~~, a <think>...</think> preamble, or bare code) and returns the CUDA
    source to submit, or None when the answer holds no kernel. The extraction happens here, in
    the client: the server judges exactly the bytes it is sent (a fenced answer sent as it is
    compiles as Markdown: COMPILE_ERROR), so what was submitted is what a job shows.
  * score_completions(client, problems, completions) (ascore_completions: the same for a
    kjudge.AsyncClient) submits every extracted kernel in batches,
    waits until a deadline, and returns one RewardResult per completion, in order: never an
    exception for a completion (no code, refused, unfinished are rewards too), never a lost job.
    Jobs still unfinished at the deadline are cancelled (cancel_unfinished=True) so the next
    batch does not queue behind them; their reward is shaping.unfinished.
  * Rewards follow RewardShaping (defaults: DEFAULT_SHAPING, documented per field); a correct
    kernel's reward grows with log(speedup) against the chosen baseline (None: the strongest
    measured, so a reward never comes from beating a strawman), and is never below any failure.
  * trl_reward_function / verl_compute_score / openrlhf_reward_func are each framework's reward
    signature over score_completions (clients/python/examples/rewards_*.py show each in use).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from . import errors
from .client import Client
from .types import Job, Submission, Verdict

# ---------------------------------------------------------------------------- extraction

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
# An opening fence (``` or ~~~, 3 or more), an optional info string, then the body up to the same
# fence on a line of its own, or to the end of the answer (a truncated generation).
_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[^\n`]*)\n(?P<body>.*?)(?:^[ \t]*(?P=fence)[ \t]*$|\Z)",
                    re.DOTALL | re.MULTILINE)
CODE_LANGS = {"cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc", "c", "h", "hpp", ""}
_PLAN = re.compile(r"/\*\s*kjudge-plan\b.*?\*/", re.DOTALL)
_LOOKS_LIKE_CUDA = re.compile(r"__global__|kjudge-plan")
MAX_ANSWER_CHARS = 1 << 20  # longer answers are cut before extraction (the server caps sources too)


def extract_code(answer: str) -> Optional[str]:
    """The CUDA source in an LLM answer, or None when it holds none.

    Order: a <think>...</think> part is dropped; among fenced blocks whose language is a C/C++/
    CUDA one (or none), the last one with a __global__ kernel or a kjudge-plan comment wins (models
    revise: the last is the answer), else the last such block; an answer with no fence is taken
    whole when it looks like CUDA (__global__ or kjudge-plan). When the chosen block has no
    kjudge-plan comment but the answer has one elsewhere (a separate block), it is prepended."""
    text = _THINK.sub("", answer[:MAX_ANSWER_CHARS])
    blocks = [m for m in _FENCE.finditer(text) if _lang(m.group("lang")) in CODE_LANGS]
    if blocks:
        with_kernel = [m for m in blocks if _LOOKS_LIKE_CUDA.search(m.group("body"))]
        code = (with_kernel or blocks)[-1].group("body")
    elif _LOOKS_LIKE_CUDA.search(text) and "```" not in text and "~~~" not in text:
        code = text
    else:
        return None
    code = code.strip("\n")
    if not code.strip():
        return None
    if not _PLAN.search(code):
        plan = _PLAN.search(text)
        if plan:
            code = plan.group(0) + "\n" + code
    return code + "\n"


def _lang(info: str) -> str:
    words = info.strip().split()
    return words[0].lower().lstrip("{.").rstrip("}") if words else ""


def completion_text(completion: Any) -> str:
    """The text of one completion as frameworks pass it: a string, a chat message
    ({"role": "assistant", "content": ...}), or a list of messages (the last assistant one)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        content = completion.get("content", "")
        return content if isinstance(content, str) else str(content)
    if isinstance(completion, Sequence):
        messages = [m for m in completion if isinstance(m, Mapping)]
        assistant = [m for m in messages if m.get("role", "assistant") == "assistant"]
        return completion_text((assistant or messages)[-1]) if messages else ""
    return str(completion)


# ---------------------------------------------------------------------------- shaping


@dataclass(frozen=True)
class RewardShaping:
    """The reward of each outcome. Defaults (DEFAULT_SHAPING) order the outcomes so that each
    step towards a fast correct kernel pays: no code < does not compile < compiles < correct.

    no_code: the answer holds no kernel (extract_code gave None) or the server refused it as
      malformed before judging (InvalidArgument: an empty or oversized source).
    compile_error: COMPILE_ERROR, or REJECTED (a launch plan the server cannot use).
    compiled: COMPILED (a compile-only job: it compiled; correctness not checked).
    incorrect: compiled but not correct (WRONG_ANSWER, LAUNCH_ERROR, RUNTIME_ERROR, TIMEOUT,
      UNWRITTEN_OUTPUT, INPUT_MODIFIED).
    suspicious: SUSPICIOUS (the judge saw an attempt to game the measurement): below every honest
      failure, so a policy does not learn it.
    correct: CORRECT with no speedup measured (or speedup_weight 0).
    speedup_weight, max_log_speedup: CORRECT with a speedup s against `baseline` earns
      correct + speedup_weight * clamp(ln s, -max_log_speedup, max_log_speedup), never less than
      min_correct (so a slow correct kernel still beats every failure).
    unfinished: no verdict by the deadline, refused for now after the client's retries, or an
      INTERNAL_ERROR / CANCELLED job: the judge's problem, not the policy's (0: no signal).
    baseline: the baseline speedups are taken against; None = the strongest measured for the job
      (Job.speedup), e.g. "torch_eager" or "torch_compile" to fix one."""

    no_code: float = -1.0
    compile_error: float = -0.5
    compiled: float = 0.1
    incorrect: float = 0.0
    suspicious: float = -1.0
    correct: float = 1.0
    speedup_weight: float = 1.0
    max_log_speedup: float = math.log(100.0)
    min_correct: float = 0.5
    unfinished: float = 0.0
    baseline: Optional[str] = None


DEFAULT_SHAPING = RewardShaping()

_INCORRECT = {Verdict.WRONG_ANSWER, Verdict.LAUNCH_ERROR, Verdict.RUNTIME_ERROR, Verdict.TIMEOUT,
              Verdict.UNWRITTEN_OUTPUT, Verdict.INPUT_MODIFIED}


@dataclass(frozen=True)
class RewardResult:
    """One completion's reward and how it came about.

    outcome: "no_code", "refused" (the server refused the submission; `error` says why),
    "unfinished" (no verdict by the deadline; the job was cancelled when cancel_unfinished), or
    "judged" (`verdict` set). speedup: against shaping.baseline, CORRECT jobs only."""

    reward: float
    outcome: str
    verdict: Optional[Verdict] = None
    speedup: Optional[float] = None
    job_id: Optional[str] = None
    error: str = ""
    job: Optional[Job] = field(default=None, repr=False, compare=False)


def reward_for_job(job: Job, shaping: RewardShaping = DEFAULT_SHAPING) -> RewardResult:
    """The reward of one finished (or unfinished) job under `shaping`."""
    if not job.done or job.verdict is None:
        return RewardResult(shaping.unfinished, "unfinished", None, None, job.id, "no verdict yet", job)
    v = job.verdict
    speedup = None
    if v == Verdict.CORRECT:
        speedup = job.speedup(shaping.baseline)
        reward = shaping.correct
        if speedup is not None and speedup > 0 and shaping.speedup_weight:
            log_s = max(-shaping.max_log_speedup, min(shaping.max_log_speedup, math.log(speedup)))
            reward = max(shaping.min_correct, shaping.correct + shaping.speedup_weight * log_s)
    elif v == Verdict.COMPILED:
        reward = shaping.compiled
    elif v in (Verdict.COMPILE_ERROR, Verdict.REJECTED):
        reward = shaping.compile_error
    elif v == Verdict.SUSPICIOUS:
        reward = shaping.suspicious
    elif v in _INCORRECT:
        reward = shaping.incorrect
    else:  # INTERNAL_ERROR, CANCELLED, BASELINES_MEASURED: not the submission's doing
        return RewardResult(shaping.unfinished, "unfinished", v, None, job.id, job.message[:500], job)
    return RewardResult(reward, "judged", v, speedup, job.id, "", job)


# ---------------------------------------------------------------------------- scoring


class _Batch:
    """One score_completions call's bookkeeping, shared by the blocking and asyncio versions:
    extraction and submissions in, one RewardResult per completion out."""

    def __init__(self, problems: Union[str, Sequence[str]], completions: Sequence[Any],
                 shaping: RewardShaping, tags: Optional[Mapping[str, str]], compile_only: bool,
                 idempotency_keys: Optional[Sequence[Optional[str]]], deadline: float,
                 cancel_unfinished: bool) -> None:
        names = [problems] * len(completions) if isinstance(problems, str) else list(problems)
        if len(names) != len(completions):
            raise ValueError(f"score_completions: {len(names)} problems for {len(completions)} completions; "
                             "pass one problem name, or one per completion")
        keys = list(idempotency_keys) if idempotency_keys is not None else [None] * len(completions)
        if len(keys) != len(completions):
            raise ValueError(f"score_completions: {len(keys)} idempotency keys for {len(completions)} completions")
        self.shaping, self.deadline, self.cancel_unfinished = shaping, deadline, cancel_unfinished
        self.end = time.monotonic() + deadline
        self.results: List[Optional[RewardResult]] = [None] * len(completions)
        self.submissions: List[Submission] = []
        self._slots: List[int] = []
        self._waiting: Dict[str, int] = {}
        for i, completion in enumerate(completions):
            code = extract_code(completion_text(completion))
            if code is None:
                self.results[i] = RewardResult(shaping.no_code, "no_code", error="no CUDA code found in the answer")
                continue
            self.submissions.append(Submission(problem=names[i], source=code, compile_only=compile_only,
                                               tags=dict(tags or {}), idempotency_key=keys[i]))
            self._slots.append(i)

    def submitted(self, items: Sequence[Any]) -> List[str]:
        """Takes submit_batch's items; returns the ids of the jobs to wait for."""
        for slot, item in zip(self._slots, items):
            if item.job is not None:
                self._waiting[item.job.id] = slot
                if item.job.done:  # REJECTED at once
                    self.results[slot] = reward_for_job(item.job, self.shaping)
            else:
                self.results[slot] = _refused(item.error, self.shaping)
        return [j for j, slot in self._waiting.items() if self.results[slot] is None]

    def remaining(self) -> float:
        return max(0.1, self.end - time.monotonic())

    def finished(self, job: Job) -> None:
        self.results[self._waiting[job.id]] = reward_for_job(job, self.shaping)

    def unfinished(self, job_id: str, job: Optional[Job]) -> None:
        self.results[self._waiting[job_id]] = RewardResult(
            self.shaping.unfinished, "unfinished", None, None, job_id,
            f"no verdict within the {self.deadline:g} s deadline" + ("; cancelled" if self.cancel_unfinished else ""), job)

    def done(self) -> List[RewardResult]:
        return [r for r in self.results if r is not None]


def score_completions(
    client: Client,
    problems: Union[str, Sequence[str]],
    completions: Sequence[Any],
    *,
    shaping: RewardShaping = DEFAULT_SHAPING,
    deadline: float = 600.0,
    tags: Optional[Mapping[str, str]] = None,
    compile_only: bool = False,
    idempotency_keys: Optional[Sequence[Optional[str]]] = None,
    cancel_unfinished: bool = True,
) -> List[RewardResult]:
    """One RewardResult per completion, in order.

    problems: one problem name for all, or one per completion ("level1/19_ReLU"; the
    "kernelbench/" prefix of imported problems included). completions: strings or chat messages
    (completion_text). deadline: seconds for the whole batch (submit + judge); jobs unfinished
    then get shaping.unfinished and are cancelled when cancel_unfinished. tags: added to every
    job of the batch (e.g. {"run": "r7", "step": "12"}: kjudge stats / the dashboard filter by
    them). idempotency_keys: per completion (None: fresh); with keys, a retried step judges
    nothing twice. compile_only: ask for compile-only jobs (no GPU needed).
    ascore_completions is the same for a kjudge.AsyncClient."""
    batch = _Batch(problems, completions, shaping, tags, compile_only, idempotency_keys, deadline, cancel_unfinished)
    open_ids = batch.submitted(client.submit_batch(batch.submissions)) if batch.submissions else []
    final: Dict[str, Job] = {}
    if open_ids:
        try:
            for job in client.watch_many(open_ids, timeout=batch.remaining()):
                if job.done:
                    final[job.id] = job
        except errors.DeadlineExceeded:
            pass
    for job_id in open_ids:
        if job_id in final:
            batch.finished(final[job_id])
            continue
        cancelled: Optional[Job] = None
        if cancel_unfinished:
            try:
                cancelled = client.cancel(job_id)
            except errors.KjudgeError:
                pass  # finished meanwhile (FailedPrecondition) or unreachable: still unfinished here
        batch.unfinished(job_id, cancelled)
    return batch.done()


async def ascore_completions(
    client: Any,
    problems: Union[str, Sequence[str]],
    completions: Sequence[Any],
    *,
    shaping: RewardShaping = DEFAULT_SHAPING,
    deadline: float = 600.0,
    tags: Optional[Mapping[str, str]] = None,
    compile_only: bool = False,
    idempotency_keys: Optional[Sequence[Optional[str]]] = None,
    cancel_unfinished: bool = True,
) -> List[RewardResult]:
    """score_completions for a kjudge.AsyncClient (await it); the same arguments and results."""
    batch = _Batch(problems, completions, shaping, tags, compile_only, idempotency_keys, deadline, cancel_unfinished)
    open_ids = batch.submitted(await client.submit_batch(batch.submissions)) if batch.submissions else []
    final: Dict[str, Job] = {}
    if open_ids:
        try:
            async for job in client.watch_many(open_ids, timeout=batch.remaining()):
                if job.done:
                    final[job.id] = job
        except errors.DeadlineExceeded:
            pass
    for job_id in open_ids:
        if job_id in final:
            batch.finished(final[job_id])
            continue
        cancelled: Optional[Job] = None
        if cancel_unfinished:
            try:
                cancelled = await client.cancel(job_id)
            except errors.KjudgeError:
                pass
        batch.unfinished(job_id, cancelled)
    return batch.done()


def _refused(error: Optional[errors.KjudgeError], shaping: RewardShaping) -> RewardResult:
    message = error.message if error is not None else "refused"
    if isinstance(error, errors.InvalidArgument) and error.field == "source":
        return RewardResult(shaping.no_code, "refused", error=message)
    return RewardResult(shaping.unfinished, "refused", error=message)


# ---------------------------------------------------------------------------- frameworks


class _Shared:
    """One Client per (server, api_key) for the framework adapters, made on first use."""

    clients: Dict[tuple, Client] = {}

    @classmethod
    def client(cls, server: Optional[str], api_key: Optional[str]) -> Client:
        key = (server, api_key)
        if key not in cls.clients:
            cls.clients[key] = Client(server, api_key=api_key)
        return cls.clients[key]


def trl_reward_function(
    *,
    server: Optional[str] = None,
    api_key: Optional[str] = None,
    client: Optional[Client] = None,
    problem_column: str = "problem",
    **options: Any,
) -> Callable[..., List[float]]:
    """A TRL reward function (GRPOTrainer(reward_funcs=[...])): called as
    f(prompts=..., completions=..., **dataset_columns) -> list of floats. The problem of each
    completion comes from the dataset column `problem_column`. options: score_completions's
    keyword arguments (shaping, deadline, tags, compile_only)."""
    def kjudge_reward(prompts: Optional[Sequence[Any]] = None, completions: Sequence[Any] = (),
                      **kwargs: Any) -> List[float]:
        if problem_column not in kwargs:
            raise KeyError(f"kjudge_reward: the dataset has no '{problem_column}' column naming each "
                           "row's kjudge problem (trl_reward_function(problem_column=...))")
        kj = client or _Shared.client(server, api_key)
        return [r.reward for r in score_completions(kj, list(kwargs[problem_column]), completions, **options)]

    return kjudge_reward


def verl_compute_score(
    *,
    server: Optional[str] = None,
    api_key: Optional[str] = None,
    client: Optional[Client] = None,
    **options: Any,
) -> Callable[..., Any]:
    """A verl custom reward function (custom_reward_function.path / .name): called per sample as
    f(data_source, solution_str, ground_truth, extra_info=None) -> float, or, with verl's batch
    reward manager, as f(data_sources=[...], solution_strs=[...], ground_truths=[...],
    extra_infos=[...]) -> list of floats. ground_truth holds the kjudge problem name."""
    def compute_score(data_source: Any = None, solution_str: Any = None, ground_truth: Any = None,
                      extra_info: Any = None, **kwargs: Any) -> Any:
        kj = client or _Shared.client(server, api_key)
        if "solution_strs" in kwargs:  # BatchRewardManager
            return [r.reward for r in score_completions(kj, list(kwargs["ground_truths"]),
                                                        list(kwargs["solution_strs"]), **options)]
        return score_completions(kj, [str(ground_truth)], [solution_str], **options)[0].reward

    return compute_score


def openrlhf_reward_func(
    *,
    server: Optional[str] = None,
    api_key: Optional[str] = None,
    client: Optional[Client] = None,
    **options: Any,
) -> Callable[..., Dict[str, Any]]:
    """An OpenRLHF reward function (--remote_rm_url reward_func.py): called as
    f(queries, prompts, labels) -> {"rewards", "scores", "extra_logs"}. A query is prompt +
    response: the response is the query with its prompt cut off. labels hold the kjudge problem
    names (--label_key). Rewards are a torch tensor when torch is importable, else a list."""
    def reward_func(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[str],
                    **kwargs: Any) -> Dict[str, Any]:
        kj = client or _Shared.client(server, api_key)
        responses = [q[len(p):] if q.startswith(p) else q for q, p in zip(queries, prompts)]
        results = score_completions(kj, list(labels), responses, **options)
        rewards: Any = [r.reward for r in results]
        correct: Any = [1.0 if r.verdict == Verdict.CORRECT else 0.0 for r in results]
        try:
            import torch  # OpenRLHF's own dependency
            rewards, correct = torch.tensor(rewards), torch.tensor(correct)
        except ImportError:
            pass
        return {"rewards": rewards, "scores": correct, "extra_logs": {"kjudge_correct": correct}}

    return reward_func


__all__ = [
    "extract_code", "completion_text", "RewardShaping", "DEFAULT_SHAPING", "RewardResult",
    "reward_for_job", "score_completions", "ascore_completions", "trl_reward_function", "verl_compute_score",
    "openrlhf_reward_func",
]
