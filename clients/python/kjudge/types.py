"""Typed views of kjudge's API messages (proto/kjudge/v1/kjudge.proto).

Each view keeps the fields an agent reads most and the full message in `.proto`, so anything
else the API carries (timings, test outcomes, flags) is one attribute away.
"""

from __future__ import annotations

import enum
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Mapping, Optional, Tuple, Union

from .errors import KjudgeError
from .v1 import kjudge_pb2 as pb

__all__ = [
    "Verdict",
    "JobState",
    "Stage",
    "Speedup",
    "Job",
    "KernelResources",
    "JobPage",
    "JobSource",
    "Submission",
    "BatchItem",
    "ProblemSummary",
    "TensorInfo",
    "Problem",
    "Stats",
    "ProblemSetStats",
]


class Verdict(str, enum.Enum):
    """The closed set of outcomes; members compare equal to their names ("CORRECT")."""

    CORRECT = "CORRECT"
    COMPILED = "COMPILED"
    COMPILE_ERROR = "COMPILE_ERROR"
    LAUNCH_ERROR = "LAUNCH_ERROR"
    WRONG_ANSWER = "WRONG_ANSWER"
    UNWRITTEN_OUTPUT = "UNWRITTEN_OUTPUT"
    INPUT_MODIFIED = "INPUT_MODIFIED"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    TIMEOUT = "TIMEOUT"
    SUSPICIOUS = "SUSPICIOUS"
    REJECTED = "REJECTED"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    CANCELLED = "CANCELLED"
    BASELINES_MEASURED = "BASELINES_MEASURED"  # a baselines-only job (kjudge baselines measure)


class JobState(str, enum.Enum):
    """Where a job is in the queue."""

    QUEUED = "QUEUED"
    RUNNING = "RUNNING"
    DONE = "DONE"


class Stage(str, enum.Enum):
    """Where a running job is; finer than JobState."""

    UNSPECIFIED = "STAGE_UNSPECIFIED"
    QUEUED = "STAGE_QUEUED"
    COMPILING = "STAGE_COMPILING"
    CHECKING = "STAGE_CHECKING"
    TIMING = "STAGE_TIMING"
    BASELINE = "STAGE_BASELINE"
    DONE = "STAGE_DONE"


@dataclass(frozen=True)
class Speedup:
    """Baseline median / candidate median on one benchmark shape."""

    shape: str
    baseline: str
    speedup: float


@dataclass(frozen=True)
class KernelResources:
    """One compiled kernel's resources as ptxas reports them (JobResult.kernels; no GPU needed, so
    COMPILED jobs have them too). Per thread unless it says per block. `plan_names` are the launch
    plan's name expressions that lowered to `name` (empty for a kernel the plan never launches);
    `dynamic_shared_bytes` is the most the plan asks for it at any shape; `max_threads_per_block`
    is what the registers and the kernel's __launch_bounds__ allow."""

    name: str
    plan_names: Tuple[str, ...]
    registers: int
    spill_store_bytes: int
    spill_load_bytes: int
    static_shared_bytes: int
    dynamic_shared_bytes: int
    local_bytes: int
    max_threads_per_block: int
    barriers: int

    @classmethod
    def from_proto(cls, k: pb.KernelResources) -> "KernelResources":
        return cls(
            name=k.name[:300],
            plan_names=tuple(n[:300] for n in k.plan_names),
            registers=k.registers,
            spill_store_bytes=k.spill_store_bytes,
            spill_load_bytes=k.spill_load_bytes,
            static_shared_bytes=k.static_shared_bytes,
            dynamic_shared_bytes=k.dynamic_shared_bytes,
            local_bytes=k.local_bytes,
            max_threads_per_block=k.max_threads_per_block,
            barriers=k.barriers,
        )


@dataclass(frozen=True)
class Job:
    """A job as the server last reported it. `verdict` is None until the job is DONE."""

    id: str
    problem: str
    state: JobState
    stage: Stage
    verdict: Optional[Verdict]
    message: str
    compile_log: str
    queue_position: int
    progress_done: int
    progress_total: int
    compile_only: bool
    tags: Dict[str, str]
    idempotency_key: str
    speedups: Tuple[Speedup, ...]
    proto: pb.Job = field(repr=False, compare=False)
    # While QUEUED: why no connected worker can take it (e.g. "no connected worker can judge this
    # job: 1 compile-only worker; submit with --compile-only or start a GPU worker"); "" when one can.
    waiting_reason: str = ""
    # Each compiled kernel's resources (registers, spills, shared and local memory), in the order
    # ptxas compiled them; at most 64, kernels_cut counts the rest. Empty until compiled.
    kernels: Tuple[KernelResources, ...] = ()
    kernels_cut: int = 0
    # DONE with the verdict its kind asks for (CORRECT; COMPILED for a compile-only job;
    # BASELINES_MEASURED for a baselines-only one): decided by the server (Job.succeeded).
    succeeded: bool = False

    @classmethod
    def from_proto(cls, job: pb.Job) -> "Job":
        done = job.state == pb.DONE
        return cls(
            id=job.id,
            problem=job.problem,
            state=JobState(pb.JobState.Name(job.state)) if job.state else JobState.QUEUED,
            stage=Stage(pb.Stage.Name(job.stage)),
            verdict=Verdict(pb.Verdict.Name(job.result.verdict)) if done else None,
            message=job.result.message,
            compile_log=job.result.compile_log,
            queue_position=job.queue_position,
            progress_done=job.progress_done,
            progress_total=job.progress_total,
            compile_only=job.compile_only,
            tags=dict(job.tags),
            idempotency_key=job.idempotency_key,
            speedups=tuple(Speedup(s.shape, s.baseline, s.speedup) for s in job.result.speedups),
            proto=job,
            waiting_reason=job.waiting_reason[:400] if job.state == pb.QUEUED else "",
            kernels=tuple(KernelResources.from_proto(k) for k in job.result.kernels[:64]),
            kernels_cut=job.result.kernels_cut + max(0, len(job.result.kernels) - 64),
            succeeded=job.succeeded,
        )

    @property
    def done(self) -> bool:
        """True once the job has its verdict."""
        return self.state == JobState.DONE

    @property
    def ok(self) -> bool:
        """True when the job did what its kind asks for: CORRECT, COMPILED for a compile-only job,
        BASELINES_MEASURED for a baselines-only job. The server decides it (Job.succeeded), so
        the CLI's exit code and this agree."""
        return self.succeeded

    @property
    def exit_code(self) -> int:
        """The `kjudge` CLI's exit code for this job: 0 ok, 1 any other verdict, 4 unfinished."""
        if not self.done:
            return 4
        return 0 if self.ok else 1

    def speedup(self, baseline: Optional[str] = None) -> Optional[float]:
        """Geometric mean over benchmark shapes of the speedup against `baseline`; None if that
        baseline was not measured. baseline=None: against the strongest baseline measured for the
        job (the one it beats by the least), so a reward cannot come from beating a strawman."""
        if baseline is None:
            per_baseline = [self.speedup(name) for name in {s.baseline for s in self.speedups}]
            measured = [v for v in per_baseline if v is not None]
            return min(measured) if measured else None
        values = [s.speedup for s in self.speedups if s.baseline == baseline and s.speedup > 0]
        if not values:
            return None
        return math.exp(sum(math.log(v) for v in values) / len(values))


@dataclass(frozen=True)
class JobSource:
    """A job's submission as the server stored it (GetJobSource): what was judged. A REJECTED
    job keeps the head of its source and plan; a baselines-only job has none."""

    job_id: str
    filename: str  # as submitted; "submission.cu" when none was given
    source: str  # the CUDA C++, byte for byte
    launch_plan: str  # the plan as judged: given apart, or taken from the source's kjudge-plan block

    @classmethod
    def from_proto(cls, s: pb.JobSource) -> "JobSource":
        return cls(job_id=s.job_id, filename=s.filename, source=s.source, launch_plan=s.launch_plan)


@dataclass(frozen=True)
class JobPage:
    """One page of ListJobs: newest first; pass next_page_token back for the next ("": none)."""

    jobs: Tuple[Job, ...]
    next_page_token: str


@dataclass
class Submission:
    """One kernel to judge. `source` is CUDA device code with a kjudge-plan comment block, or a
    path (pathlib.Path) to such a file. idempotency_key None lets the client pick a fresh one, so
    its retries never queue a job twice; set your own (e.g. "run/episode/sample") to make your
    own retries, across processes, safe as well."""

    problem: str
    source: Union[str, "os.PathLike[str]"]
    launch_plan: str = ""
    compile_only: bool = False
    tags: Mapping[str, str] = field(default_factory=dict)
    filename: str = ""
    public: bool = False
    idempotency_key: Optional[str] = None

    def to_proto(self, idempotency_key: str) -> pb.SubmitRequest:
        """The SubmitRequest for this submission, with the key the client settled on."""
        source = self.source
        filename = self.filename
        if isinstance(source, os.PathLike):
            path = Path(source)
            filename = filename or path.name
            source = path.read_text(encoding="utf-8")
        return pb.SubmitRequest(
            problem=self.problem,
            source=source,
            launch_plan=self.launch_plan,
            compile_only=self.compile_only,
            tags=dict(self.tags),
            filename=filename,
            public=self.public,
            idempotency_key=idempotency_key,
        )


@dataclass(frozen=True)
class BatchItem:
    """One SubmitBatch answer, in request order: a job, or the error that refused the item."""

    job: Optional[Job]
    error: Optional[KjudgeError]
    idempotency_key: str

    @property
    def job_id(self) -> Optional[str]:
        return self.job.id if self.job is not None else None


@dataclass(frozen=True)
class ProblemSummary:
    name: str
    level: int
    title: str
    # Only reference.py (no CUDA reference): judged only on workers with PyTorch.
    needs_pytorch: bool = False


@dataclass(frozen=True)
class TensorInfo:
    name: str
    dtype: str
    shape: Tuple[str, ...]
    role: str


@dataclass(frozen=True)
class Problem:
    """A catalog problem. `prompt` is the LLM-ready task text; `starter_file` a .cu to start from."""

    name: str
    level: int
    title: str
    description: str
    prompt: str
    starter_file: str
    sizes: Tuple[str, ...]
    tensors: Tuple[TensorInfo, ...]
    test_shapes: Tuple[str, ...]
    bench_shapes: Tuple[str, ...]
    spec_toml: str
    proto: pb.Problem = field(repr=False, compare=False)

    @classmethod
    def from_proto(cls, p: pb.Problem) -> "Problem":
        return cls(
            name=p.name,
            level=p.level,
            title=p.title,
            description=p.description,
            prompt=p.prompt,
            starter_file=p.starter_file,
            sizes=tuple(p.sizes),
            tensors=tuple(TensorInfo(t.name, t.dtype, tuple(t.shape), t.role) for t in p.tensors),
            test_shapes=tuple(p.test_shapes),
            bench_shapes=tuple(p.bench_shapes),
            spec_toml=p.spec_toml,
            proto=p,
        )


def _optional(message: Union[pb.Stats, pb.ProblemSetStats], name: str) -> Optional[float]:
    """An optional proto3 double: None ("n/a": nothing was measured) when the server left it unset."""
    return getattr(message, name) if message.HasField(name) else None


@dataclass(frozen=True)
class ProblemSetStats:
    """KernelBench's metrics, one result per problem of the run's problem set (docs/metrics.md):
    a problem with no judged job counts as a failure. fast_p maps p to fast_p@1; pass_at_k maps
    k (1, 5, 10 where every judged problem has at least k jobs) to pass@k, fast_p_at_k k to
    {p: fast_p@k}. geomean_speedup is None when no problem has a speedup."""

    problems: int
    judged: int
    unsubmitted: int
    correctness: float
    fast_p: Dict[float, float]
    geomean_speedup: Optional[float]
    with_speedup: int
    pass_at_k: Dict[int, float]
    fast_p_at_k: Dict[int, Dict[float, float]]
    unsubmitted_problems: Tuple[str, ...]

    @classmethod
    def from_proto(cls, s: pb.ProblemSetStats) -> "ProblemSetStats":
        return cls(
            problems=s.problems,
            judged=s.judged,
            unsubmitted=s.unsubmitted,
            correctness=s.correctness,
            fast_p={f.p: f.fraction for f in s.fast_p},
            geomean_speedup=_optional(s, "geomean_speedup"),
            with_speedup=s.with_speedup,
            pass_at_k={e.k: e.fraction for e in s.pass_at_k},
            fast_p_at_k={e.k: {f.p: f.fraction for f in e.fast_p} for e in s.pass_at_k},
            unsubmitted_problems=tuple(s.unsubmitted_problems),
        )


@dataclass(frozen=True)
class Stats:
    """KernelBench-style metrics computed by the server (docs/metrics.md); every speedup is
    against `baseline`. Per job: jobs (judged), compile_only_jobs, compile_rate (over both),
    correctness_rate, fast_p (p -> fraction of judged jobs correct with a speedup above p) and
    geomean_speedup. Per problem (KernelBench's one result per problem): per_problem. None (or
    an empty fast_p) means n/a: nothing was measured (e.g. a compile-only run has a compile_rate
    and nothing else)."""

    jobs: int
    compiled: int
    correct: int
    compile_rate: Optional[float]
    correctness_rate: Optional[float]
    fast_p: Dict[float, float]
    geomean_speedup: Optional[float]
    with_speedup: int
    baseline: str
    verdicts: Dict[str, int]
    compile_only_jobs: int
    per_problem: Optional[ProblemSetStats]
    proto: pb.Stats = field(repr=False, compare=False)

    @classmethod
    def from_proto(cls, s: pb.Stats) -> "Stats":
        return cls(
            jobs=s.jobs,
            compiled=s.compiled,
            correct=s.correct,
            compile_rate=_optional(s, "compile_rate"),
            correctness_rate=_optional(s, "correctness_rate"),
            fast_p={f.p: f.fraction for f in s.fast_p},
            geomean_speedup=_optional(s, "geomean_speedup"),
            with_speedup=s.with_speedup,
            baseline=s.baseline,
            verdicts=dict(s.verdicts),
            compile_only_jobs=s.compile_only_jobs,
            per_problem=ProblemSetStats.from_proto(s.per_problem) if s.HasField("per_problem") else None,
            proto=s,
        )


class WaitResult(Dict[str, "Job"]):
    """wait_many's answer: the jobs that finished, by id, in the order given (a dict). At a
    deadline it holds what finished by then, and says which did not: .unfinished maps each other
    id to its job as last seen (None if never seen), .complete is True when nothing is left."""

    def __init__(self, finished: Dict[str, "Job"], unfinished: Dict[str, Optional["Job"]]) -> None:
        super().__init__(finished)
        self.unfinished: Dict[str, Optional[Job]] = unfinished

    @property
    def complete(self) -> bool:
        return not self.unfinished

    def __repr__(self) -> str:
        return f"WaitResult(finished={len(self)}, unfinished={list(self.unfinished)})"
