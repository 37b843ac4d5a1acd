"""kjudge: a Python client for kjudge, the GPU kernel judge (gRPC API kjudge.v1).

    import kjudge
    with kjudge.Client("127.0.0.1:50051") as kj:
        job = kj.evaluate("level1/19_ReLU", kj.problem("level1/19_ReLU").starter_file)
        print(job.verdict, job.message)

Client is blocking; kjudge.aio.AsyncClient (also kjudge.AsyncClient) is the asyncio twin.
kjudge.rewards: completions in, rewards out, for RL loops (TRL, verl, OpenRLHF).
Exceptions live in kjudge.errors; typed results (Job, Problem, Stats, ...) in kjudge.types.
The raw generated stubs are kjudge.v1.kjudge_pb2 and kjudge.v1.kjudge_pb2_grpc.
"""

from ._core import NO_RETRY, RetryPolicy
from .aio import AsyncClient
from .client import Client
from . import rewards
from .errors import (
    AlreadyExists,
    BadRequest,
    DeadlineExceeded,
    FailedPrecondition,
    InvalidArgument,
    KjudgeError,
    NotFound,
    PermissionDenied,
    RefusedForNow,
    ServerError,
    Unauthenticated,
    Unreachable,
    WaitingWarning,
)
from .types import (
    BatchItem,
    Job,
    JobPage,
    JobSource,
    JobState,
    Problem,
    ProblemSummary,
    Speedup,
    Stage,
    Stats,
    Submission,
    TensorInfo,
    Verdict,
)

__version__ = "0.1.0"

__all__ = [
    "Client", "AsyncClient", "RetryPolicy", "NO_RETRY",
    "Submission", "Job", "JobPage", "JobSource", "JobState", "Stage", "Verdict", "Speedup", "BatchItem",
    "Problem", "ProblemSummary", "TensorInfo", "Stats",
    "KjudgeError", "BadRequest", "InvalidArgument", "NotFound", "AlreadyExists", "FailedPrecondition",
    "PermissionDenied", "Unauthenticated", "RefusedForNow", "Unreachable", "DeadlineExceeded", "ServerError",
    "WaitingWarning",
]
