from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

BASELINES_MEASURED: Verdict
BASELINE_KIND_LIBRARY: BaselineKind
BASELINE_KIND_OTHER: BaselineKind
BASELINE_KIND_PYTORCH_COMPILE: BaselineKind
BASELINE_KIND_PYTORCH_EAGER: BaselineKind
BASELINE_KIND_REFERENCE: BaselineKind
BASELINE_KIND_REFERENCE_ONLY: BaselineKind
BASELINE_KIND_UNSPECIFIED: BaselineKind
CANCELLED: Verdict
COMPILED: Verdict
COMPILE_ERROR: Verdict
CORRECT: Verdict
DESCRIPTOR: _descriptor.FileDescriptor
DONE: JobState
INPUT_MODIFIED: Verdict
INTERNAL_ERROR: Verdict
JOB_STATE_UNSPECIFIED: JobState
LAUNCH_ERROR: Verdict
QUEUED: JobState
REJECTED: Verdict
RUNNING: JobState
RUNTIME_ERROR: Verdict
STAGE_BASELINE: Stage
STAGE_CHECKING: Stage
STAGE_COMPILING: Stage
STAGE_DONE: Stage
STAGE_QUEUED: Stage
STAGE_TIMING: Stage
STAGE_UNSPECIFIED: Stage
SUSPICIOUS: Verdict
TIMEOUT: Verdict
UNWRITTEN_OUTPUT: Verdict
VERDICT_UNSPECIFIED: Verdict
WRONG_ANSWER: Verdict

class BaselineStrength(_message.Message):
    __slots__ = ["baseline", "covers_all_shapes", "eligible", "geomean_us", "kind"]
    BASELINE_FIELD_NUMBER: _ClassVar[int]
    COVERS_ALL_SHAPES_FIELD_NUMBER: _ClassVar[int]
    ELIGIBLE_FIELD_NUMBER: _ClassVar[int]
    GEOMEAN_US_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    baseline: str
    covers_all_shapes: bool
    eligible: bool
    geomean_us: float
    kind: BaselineKind
    def __init__(self, baseline: _Optional[str] = ..., kind: _Optional[_Union[BaselineKind, str]] = ..., geomean_us: _Optional[float] = ..., covers_all_shapes: bool = ..., eligible: bool = ...) -> None: ...

class BaselineTiming(_message.Message):
    __slots__ = ["hardware_key", "name", "problem", "shape", "timing"]
    HARDWARE_KEY_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    hardware_key: str
    name: str
    problem: str
    shape: str
    timing: Timing
    def __init__(self, problem: _Optional[str] = ..., shape: _Optional[str] = ..., name: _Optional[str] = ..., timing: _Optional[_Union[Timing, _Mapping]] = ..., hardware_key: _Optional[str] = ...) -> None: ...

class CancelJobRequest(_message.Message):
    __slots__ = ["job_id"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class CompleteJobRequest(_message.Message):
    __slots__ = ["job_id", "lease_token", "new_baselines", "result", "worker_id"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    LEASE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    NEW_BASELINES_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    lease_token: str
    new_baselines: _containers.RepeatedCompositeFieldContainer[BaselineTiming]
    result: JobResult
    worker_id: str
    def __init__(self, worker_id: _Optional[str] = ..., job_id: _Optional[str] = ..., result: _Optional[_Union[JobResult, _Mapping]] = ..., new_baselines: _Optional[_Iterable[_Union[BaselineTiming, _Mapping]]] = ..., lease_token: _Optional[str] = ...) -> None: ...

class CompleteJobResponse(_message.Message):
    __slots__ = ["accepted"]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    accepted: bool
    def __init__(self, accepted: bool = ...) -> None: ...

class Denominator(_message.Message):
    __slots__ = ["baseline", "considered", "geomean_us", "is_default", "kind", "note", "shapes"]
    BASELINE_FIELD_NUMBER: _ClassVar[int]
    CONSIDERED_FIELD_NUMBER: _ClassVar[int]
    GEOMEAN_US_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    SHAPES_FIELD_NUMBER: _ClassVar[int]
    baseline: str
    considered: _containers.RepeatedCompositeFieldContainer[BaselineStrength]
    geomean_us: float
    is_default: bool
    kind: BaselineKind
    note: str
    shapes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, baseline: _Optional[str] = ..., kind: _Optional[_Union[BaselineKind, str]] = ..., is_default: bool = ..., geomean_us: _Optional[float] = ..., shapes: _Optional[_Iterable[str]] = ..., note: _Optional[str] = ..., considered: _Optional[_Iterable[_Union[BaselineStrength, _Mapping]]] = ...) -> None: ...

class FastP(_message.Message):
    __slots__ = ["fraction", "p"]
    FRACTION_FIELD_NUMBER: _ClassVar[int]
    P_FIELD_NUMBER: _ClassVar[int]
    fraction: float
    p: float
    def __init__(self, p: _Optional[float] = ..., fraction: _Optional[float] = ...) -> None: ...

class GetJobRequest(_message.Message):
    __slots__ = ["job_id"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class GetProblemRequest(_message.Message):
    __slots__ = ["name"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetStatsRequest(_message.Message):
    __slots__ = ["baseline", "prefix_is_problem_set", "problem_prefix", "problem_set", "public_only", "tags"]
    class TagsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    BASELINE_FIELD_NUMBER: _ClassVar[int]
    PREFIX_IS_PROBLEM_SET_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_PREFIX_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_SET_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_ONLY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    baseline: str
    prefix_is_problem_set: bool
    problem_prefix: str
    problem_set: _containers.RepeatedScalarFieldContainer[str]
    public_only: bool
    tags: _containers.ScalarMap[str, str]
    def __init__(self, tags: _Optional[_Mapping[str, str]] = ..., baseline: _Optional[str] = ..., problem_prefix: _Optional[str] = ..., public_only: bool = ..., problem_set: _Optional[_Iterable[str]] = ..., prefix_is_problem_set: bool = ...) -> None: ...

class GpuInfo(_message.Message):
    __slots__ = ["arch", "bf16_tflops", "compile_only", "copy_bandwidth_gbs", "cublas_version", "device_index", "driver_version", "event_overhead_us", "fp16_tflops", "l2_bytes", "max_sm_clock_mhz", "memory_bytes", "name", "nvrtc_version", "runtime_version", "sgemm_tflops", "sm_count", "tf32_tflops", "torch_version"]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    BF16_TFLOPS_FIELD_NUMBER: _ClassVar[int]
    COMPILE_ONLY_FIELD_NUMBER: _ClassVar[int]
    COPY_BANDWIDTH_GBS_FIELD_NUMBER: _ClassVar[int]
    CUBLAS_VERSION_FIELD_NUMBER: _ClassVar[int]
    DEVICE_INDEX_FIELD_NUMBER: _ClassVar[int]
    DRIVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENT_OVERHEAD_US_FIELD_NUMBER: _ClassVar[int]
    FP16_TFLOPS_FIELD_NUMBER: _ClassVar[int]
    L2_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_SM_CLOCK_MHZ_FIELD_NUMBER: _ClassVar[int]
    MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NVRTC_VERSION_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_VERSION_FIELD_NUMBER: _ClassVar[int]
    SGEMM_TFLOPS_FIELD_NUMBER: _ClassVar[int]
    SM_COUNT_FIELD_NUMBER: _ClassVar[int]
    TF32_TFLOPS_FIELD_NUMBER: _ClassVar[int]
    TORCH_VERSION_FIELD_NUMBER: _ClassVar[int]
    arch: str
    bf16_tflops: float
    compile_only: bool
    copy_bandwidth_gbs: float
    cublas_version: str
    device_index: int
    driver_version: str
    event_overhead_us: float
    fp16_tflops: float
    l2_bytes: int
    max_sm_clock_mhz: int
    memory_bytes: int
    name: str
    nvrtc_version: str
    runtime_version: str
    sgemm_tflops: float
    sm_count: int
    tf32_tflops: float
    torch_version: str
    def __init__(self, name: _Optional[str] = ..., sm_count: _Optional[int] = ..., memory_bytes: _Optional[int] = ..., l2_bytes: _Optional[int] = ..., arch: _Optional[str] = ..., driver_version: _Optional[str] = ..., runtime_version: _Optional[str] = ..., nvrtc_version: _Optional[str] = ..., cublas_version: _Optional[str] = ..., compile_only: bool = ..., device_index: _Optional[int] = ..., copy_bandwidth_gbs: _Optional[float] = ..., sgemm_tflops: _Optional[float] = ..., max_sm_clock_mhz: _Optional[int] = ..., tf32_tflops: _Optional[float] = ..., fp16_tflops: _Optional[float] = ..., bf16_tflops: _Optional[float] = ..., event_overhead_us: _Optional[float] = ..., torch_version: _Optional[str] = ...) -> None: ...

class ImportBaselinesRequest(_message.Message):
    __slots__ = ["baselines"]
    BASELINES_FIELD_NUMBER: _ClassVar[int]
    baselines: _containers.RepeatedCompositeFieldContainer[BaselineTiming]
    def __init__(self, baselines: _Optional[_Iterable[_Union[BaselineTiming, _Mapping]]] = ...) -> None: ...

class ImportBaselinesResponse(_message.Message):
    __slots__ = ["stored"]
    STORED_FIELD_NUMBER: _ClassVar[int]
    stored: int
    def __init__(self, stored: _Optional[int] = ...) -> None: ...

class InputKey(_message.Message):
    __slots__ = ["key_hex", "regime", "set", "shape"]
    KEY_HEX_FIELD_NUMBER: _ClassVar[int]
    REGIME_FIELD_NUMBER: _ClassVar[int]
    SET_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    key_hex: str
    regime: str
    set: str
    shape: str
    def __init__(self, set: _Optional[str] = ..., shape: _Optional[str] = ..., key_hex: _Optional[str] = ..., regime: _Optional[str] = ...) -> None: ...

class Job(_message.Message):
    __slots__ = ["attempts", "baselines_only", "compile_only", "created_unix_ms", "finished_unix_ms", "id", "idempotency_key", "problem", "progress_done", "progress_total", "public", "queue_position", "result", "stage", "started_unix_ms", "state", "succeeded", "tags", "waiting_reason", "worker"]
    class TagsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    BASELINES_ONLY_FIELD_NUMBER: _ClassVar[int]
    COMPILE_ONLY_FIELD_NUMBER: _ClassVar[int]
    CREATED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_DONE_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    QUEUE_POSITION_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    STARTED_UNIX_MS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SUCCEEDED_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    WAITING_REASON_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    attempts: int
    baselines_only: bool
    compile_only: bool
    created_unix_ms: int
    finished_unix_ms: int
    id: str
    idempotency_key: str
    problem: str
    progress_done: int
    progress_total: int
    public: bool
    queue_position: int
    result: JobResult
    stage: Stage
    started_unix_ms: int
    state: JobState
    succeeded: bool
    tags: _containers.ScalarMap[str, str]
    waiting_reason: str
    worker: str
    def __init__(self, id: _Optional[str] = ..., problem: _Optional[str] = ..., state: _Optional[_Union[JobState, str]] = ..., stage: _Optional[_Union[Stage, str]] = ..., queue_position: _Optional[int] = ..., progress_done: _Optional[int] = ..., progress_total: _Optional[int] = ..., result: _Optional[_Union[JobResult, _Mapping]] = ..., created_unix_ms: _Optional[int] = ..., finished_unix_ms: _Optional[int] = ..., attempts: _Optional[int] = ..., compile_only: bool = ..., tags: _Optional[_Mapping[str, str]] = ..., worker: _Optional[str] = ..., started_unix_ms: _Optional[int] = ..., public: bool = ..., idempotency_key: _Optional[str] = ..., baselines_only: bool = ..., waiting_reason: _Optional[str] = ..., succeeded: bool = ...) -> None: ...

class JobResult(_message.Message):
    __slots__ = ["baselines", "candidate_output", "candidate_output_cut", "compile_log", "compile_ms", "cubin_cache_hit", "cuda_error", "default_denominator", "flags", "gpu", "input_keys", "input_keys_cut", "kernels", "kernels_cut", "message", "run_ms", "seed", "speedups", "tests", "timings", "verdict"]
    BASELINES_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_OUTPUT_CUT_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    COMPILE_LOG_FIELD_NUMBER: _ClassVar[int]
    COMPILE_MS_FIELD_NUMBER: _ClassVar[int]
    CUBIN_CACHE_HIT_FIELD_NUMBER: _ClassVar[int]
    CUDA_ERROR_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_DENOMINATOR_FIELD_NUMBER: _ClassVar[int]
    FLAGS_FIELD_NUMBER: _ClassVar[int]
    GPU_FIELD_NUMBER: _ClassVar[int]
    INPUT_KEYS_CUT_FIELD_NUMBER: _ClassVar[int]
    INPUT_KEYS_FIELD_NUMBER: _ClassVar[int]
    KERNELS_CUT_FIELD_NUMBER: _ClassVar[int]
    KERNELS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RUN_MS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SPEEDUPS_FIELD_NUMBER: _ClassVar[int]
    TESTS_FIELD_NUMBER: _ClassVar[int]
    TIMINGS_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    baselines: _containers.RepeatedCompositeFieldContainer[BaselineTiming]
    candidate_output: str
    candidate_output_cut: int
    compile_log: str
    compile_ms: float
    cubin_cache_hit: bool
    cuda_error: str
    default_denominator: Denominator
    flags: _containers.RepeatedScalarFieldContainer[str]
    gpu: str
    input_keys: _containers.RepeatedCompositeFieldContainer[InputKey]
    input_keys_cut: int
    kernels: _containers.RepeatedCompositeFieldContainer[KernelResources]
    kernels_cut: int
    message: str
    run_ms: float
    seed: int
    speedups: _containers.RepeatedCompositeFieldContainer[Speedup]
    tests: _containers.RepeatedCompositeFieldContainer[TestOutcome]
    timings: _containers.RepeatedCompositeFieldContainer[ShapeTiming]
    verdict: Verdict
    def __init__(self, verdict: _Optional[_Union[Verdict, str]] = ..., message: _Optional[str] = ..., compile_log: _Optional[str] = ..., compile_ms: _Optional[float] = ..., cubin_cache_hit: bool = ..., seed: _Optional[int] = ..., tests: _Optional[_Iterable[_Union[TestOutcome, _Mapping]]] = ..., timings: _Optional[_Iterable[_Union[ShapeTiming, _Mapping]]] = ..., speedups: _Optional[_Iterable[_Union[Speedup, _Mapping]]] = ..., gpu: _Optional[str] = ..., cuda_error: _Optional[str] = ..., run_ms: _Optional[float] = ..., flags: _Optional[_Iterable[str]] = ..., candidate_output: _Optional[str] = ..., candidate_output_cut: _Optional[int] = ..., default_denominator: _Optional[_Union[Denominator, _Mapping]] = ..., baselines: _Optional[_Iterable[_Union[BaselineTiming, _Mapping]]] = ..., input_keys: _Optional[_Iterable[_Union[InputKey, _Mapping]]] = ..., input_keys_cut: _Optional[int] = ..., kernels: _Optional[_Iterable[_Union[KernelResources, _Mapping]]] = ..., kernels_cut: _Optional[int] = ...) -> None: ...

class JobSource(_message.Message):
    __slots__ = ["filename", "job_id", "launch_plan", "source"]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    LAUNCH_PLAN_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    filename: str
    job_id: str
    launch_plan: str
    source: str
    def __init__(self, job_id: _Optional[str] = ..., filename: _Optional[str] = ..., source: _Optional[str] = ..., launch_plan: _Optional[str] = ...) -> None: ...

class KernelResources(_message.Message):
    __slots__ = ["barriers", "dynamic_shared_bytes", "local_bytes", "max_threads_per_block", "name", "plan_names", "registers", "spill_load_bytes", "spill_store_bytes", "static_shared_bytes"]
    BARRIERS_FIELD_NUMBER: _ClassVar[int]
    DYNAMIC_SHARED_BYTES_FIELD_NUMBER: _ClassVar[int]
    LOCAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_THREADS_PER_BLOCK_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PLAN_NAMES_FIELD_NUMBER: _ClassVar[int]
    REGISTERS_FIELD_NUMBER: _ClassVar[int]
    SPILL_LOAD_BYTES_FIELD_NUMBER: _ClassVar[int]
    SPILL_STORE_BYTES_FIELD_NUMBER: _ClassVar[int]
    STATIC_SHARED_BYTES_FIELD_NUMBER: _ClassVar[int]
    barriers: int
    dynamic_shared_bytes: int
    local_bytes: int
    max_threads_per_block: int
    name: str
    plan_names: _containers.RepeatedScalarFieldContainer[str]
    registers: int
    spill_load_bytes: int
    spill_store_bytes: int
    static_shared_bytes: int
    def __init__(self, name: _Optional[str] = ..., plan_names: _Optional[_Iterable[str]] = ..., registers: _Optional[int] = ..., spill_store_bytes: _Optional[int] = ..., spill_load_bytes: _Optional[int] = ..., static_shared_bytes: _Optional[int] = ..., local_bytes: _Optional[int] = ..., max_threads_per_block: _Optional[int] = ..., dynamic_shared_bytes: _Optional[int] = ..., barriers: _Optional[int] = ...) -> None: ...

class LeaseJobRequest(_message.Message):
    __slots__ = ["wait_ms", "worker_id"]
    WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    wait_ms: int
    worker_id: str
    def __init__(self, worker_id: _Optional[str] = ..., wait_ms: _Optional[int] = ...) -> None: ...

class LeaseJobResponse(_message.Message):
    __slots__ = ["attempt", "has_job", "lease_seconds", "lease_token", "spec"]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    HAS_JOB_FIELD_NUMBER: _ClassVar[int]
    LEASE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    LEASE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    has_job: bool
    lease_seconds: int
    lease_token: str
    spec: RunSpec
    def __init__(self, has_job: bool = ..., spec: _Optional[_Union[RunSpec, _Mapping]] = ..., attempt: _Optional[int] = ..., lease_seconds: _Optional[int] = ..., lease_token: _Optional[str] = ...) -> None: ...

class ListBaselinesRequest(_message.Message):
    __slots__ = ["problem_prefix"]
    PROBLEM_PREFIX_FIELD_NUMBER: _ClassVar[int]
    problem_prefix: str
    def __init__(self, problem_prefix: _Optional[str] = ...) -> None: ...

class ListBaselinesResponse(_message.Message):
    __slots__ = ["baselines"]
    BASELINES_FIELD_NUMBER: _ClassVar[int]
    baselines: _containers.RepeatedCompositeFieldContainer[BaselineTiming]
    def __init__(self, baselines: _Optional[_Iterable[_Union[BaselineTiming, _Mapping]]] = ...) -> None: ...

class ListJobsRequest(_message.Message):
    __slots__ = ["page_size", "page_token", "problem", "state", "tags"]
    class TagsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    problem: str
    state: JobState
    tags: _containers.ScalarMap[str, str]
    def __init__(self, tags: _Optional[_Mapping[str, str]] = ..., state: _Optional[_Union[JobState, str]] = ..., problem: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListJobsResponse(_message.Message):
    __slots__ = ["jobs", "next_page_token"]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    jobs: _containers.RepeatedCompositeFieldContainer[Job]
    next_page_token: str
    def __init__(self, jobs: _Optional[_Iterable[_Union[Job, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListProblemsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListProblemsResponse(_message.Message):
    __slots__ = ["problems"]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    problems: _containers.RepeatedCompositeFieldContainer[ProblemSummary]
    def __init__(self, problems: _Optional[_Iterable[_Union[ProblemSummary, _Mapping]]] = ...) -> None: ...

class Mismatch(_message.Message):
    __slots__ = ["actual", "expected", "index", "tensor"]
    ACTUAL_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TENSOR_FIELD_NUMBER: _ClassVar[int]
    actual: float
    expected: float
    index: int
    tensor: str
    def __init__(self, tensor: _Optional[str] = ..., index: _Optional[int] = ..., expected: _Optional[float] = ..., actual: _Optional[float] = ...) -> None: ...

class PassAtK(_message.Message):
    __slots__ = ["fast_p", "fraction", "k"]
    FAST_P_FIELD_NUMBER: _ClassVar[int]
    FRACTION_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    fast_p: _containers.RepeatedCompositeFieldContainer[FastP]
    fraction: float
    k: int
    def __init__(self, k: _Optional[int] = ..., fraction: _Optional[float] = ..., fast_p: _Optional[_Iterable[_Union[FastP, _Mapping]]] = ...) -> None: ...

class Problem(_message.Message):
    __slots__ = ["bench_shapes", "description", "level", "name", "needs_pytorch", "prompt", "sizes", "spec_toml", "starter_file", "tensors", "test_shapes", "title"]
    BENCH_SHAPES_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NEEDS_PYTORCH_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    SIZES_FIELD_NUMBER: _ClassVar[int]
    SPEC_TOML_FIELD_NUMBER: _ClassVar[int]
    STARTER_FILE_FIELD_NUMBER: _ClassVar[int]
    TENSORS_FIELD_NUMBER: _ClassVar[int]
    TEST_SHAPES_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    bench_shapes: _containers.RepeatedScalarFieldContainer[str]
    description: str
    level: int
    name: str
    needs_pytorch: bool
    prompt: str
    sizes: _containers.RepeatedScalarFieldContainer[str]
    spec_toml: str
    starter_file: str
    tensors: _containers.RepeatedCompositeFieldContainer[TensorInfo]
    test_shapes: _containers.RepeatedScalarFieldContainer[str]
    title: str
    def __init__(self, name: _Optional[str] = ..., level: _Optional[int] = ..., title: _Optional[str] = ..., description: _Optional[str] = ..., sizes: _Optional[_Iterable[str]] = ..., tensors: _Optional[_Iterable[_Union[TensorInfo, _Mapping]]] = ..., spec_toml: _Optional[str] = ..., starter_file: _Optional[str] = ..., test_shapes: _Optional[_Iterable[str]] = ..., bench_shapes: _Optional[_Iterable[str]] = ..., prompt: _Optional[str] = ..., needs_pytorch: bool = ...) -> None: ...

class ProblemSetStats(_message.Message):
    __slots__ = ["correctness", "fast_p", "geomean_speedup", "judged", "pass_at_k", "problems", "unsubmitted", "unsubmitted_problems", "with_speedup"]
    CORRECTNESS_FIELD_NUMBER: _ClassVar[int]
    FAST_P_FIELD_NUMBER: _ClassVar[int]
    GEOMEAN_SPEEDUP_FIELD_NUMBER: _ClassVar[int]
    JUDGED_FIELD_NUMBER: _ClassVar[int]
    PASS_AT_K_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    UNSUBMITTED_FIELD_NUMBER: _ClassVar[int]
    UNSUBMITTED_PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    WITH_SPEEDUP_FIELD_NUMBER: _ClassVar[int]
    correctness: float
    fast_p: _containers.RepeatedCompositeFieldContainer[FastP]
    geomean_speedup: float
    judged: int
    pass_at_k: _containers.RepeatedCompositeFieldContainer[PassAtK]
    problems: int
    unsubmitted: int
    unsubmitted_problems: _containers.RepeatedScalarFieldContainer[str]
    with_speedup: int
    def __init__(self, problems: _Optional[int] = ..., judged: _Optional[int] = ..., unsubmitted: _Optional[int] = ..., correctness: _Optional[float] = ..., fast_p: _Optional[_Iterable[_Union[FastP, _Mapping]]] = ..., geomean_speedup: _Optional[float] = ..., with_speedup: _Optional[int] = ..., pass_at_k: _Optional[_Iterable[_Union[PassAtK, _Mapping]]] = ..., unsubmitted_problems: _Optional[_Iterable[str]] = ...) -> None: ...

class ProblemStats(_message.Message):
    __slots__ = ["compile_only_jobs", "compiled", "correct", "denominator", "fast_p", "geomean_speedup", "gpu", "jobs", "problem", "torch_eager_geomean_speedup", "torch_eager_with_speedup", "unsubmitted", "with_speedup"]
    COMPILED_FIELD_NUMBER: _ClassVar[int]
    COMPILE_ONLY_JOBS_FIELD_NUMBER: _ClassVar[int]
    CORRECT_FIELD_NUMBER: _ClassVar[int]
    DENOMINATOR_FIELD_NUMBER: _ClassVar[int]
    FAST_P_FIELD_NUMBER: _ClassVar[int]
    GEOMEAN_SPEEDUP_FIELD_NUMBER: _ClassVar[int]
    GPU_FIELD_NUMBER: _ClassVar[int]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    TORCH_EAGER_GEOMEAN_SPEEDUP_FIELD_NUMBER: _ClassVar[int]
    TORCH_EAGER_WITH_SPEEDUP_FIELD_NUMBER: _ClassVar[int]
    UNSUBMITTED_FIELD_NUMBER: _ClassVar[int]
    WITH_SPEEDUP_FIELD_NUMBER: _ClassVar[int]
    compile_only_jobs: int
    compiled: int
    correct: int
    denominator: Denominator
    fast_p: _containers.RepeatedCompositeFieldContainer[FastP]
    geomean_speedup: float
    gpu: str
    jobs: int
    problem: str
    torch_eager_geomean_speedup: float
    torch_eager_with_speedup: int
    unsubmitted: bool
    with_speedup: int
    def __init__(self, problem: _Optional[str] = ..., gpu: _Optional[str] = ..., denominator: _Optional[_Union[Denominator, _Mapping]] = ..., jobs: _Optional[int] = ..., correct: _Optional[int] = ..., with_speedup: _Optional[int] = ..., geomean_speedup: _Optional[float] = ..., fast_p: _Optional[_Iterable[_Union[FastP, _Mapping]]] = ..., torch_eager_geomean_speedup: _Optional[float] = ..., torch_eager_with_speedup: _Optional[int] = ..., compile_only_jobs: _Optional[int] = ..., compiled: _Optional[int] = ..., unsubmitted: bool = ...) -> None: ...

class ProblemSummary(_message.Message):
    __slots__ = ["level", "name", "needs_pytorch", "title"]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NEEDS_PYTORCH_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    level: int
    name: str
    needs_pytorch: bool
    title: str
    def __init__(self, name: _Optional[str] = ..., level: _Optional[int] = ..., title: _Optional[str] = ..., needs_pytorch: bool = ...) -> None: ...

class RefreshBaselinesRequest(_message.Message):
    __slots__ = ["problem_prefix", "run_examples"]
    PROBLEM_PREFIX_FIELD_NUMBER: _ClassVar[int]
    RUN_EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    problem_prefix: str
    run_examples: bool
    def __init__(self, problem_prefix: _Optional[str] = ..., run_examples: bool = ...) -> None: ...

class RefreshBaselinesResponse(_message.Message):
    __slots__ = ["job_ids", "removed"]
    JOB_IDS_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    job_ids: _containers.RepeatedScalarFieldContainer[str]
    removed: int
    def __init__(self, removed: _Optional[int] = ..., job_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class RegisterWorkerRequest(_message.Message):
    __slots__ = ["gpu", "name"]
    GPU_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    gpu: GpuInfo
    name: str
    def __init__(self, name: _Optional[str] = ..., gpu: _Optional[_Union[GpuInfo, _Mapping]] = ...) -> None: ...

class RegisterWorkerResponse(_message.Message):
    __slots__ = ["lease_seconds", "worker_id"]
    LEASE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    lease_seconds: int
    worker_id: str
    def __init__(self, worker_id: _Optional[str] = ..., lease_seconds: _Optional[int] = ...) -> None: ...

class ReleaseJobRequest(_message.Message):
    __slots__ = ["job_id", "lease_token", "reason", "worker_id"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    LEASE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    lease_token: str
    reason: str
    worker_id: str
    def __init__(self, worker_id: _Optional[str] = ..., job_id: _Optional[str] = ..., reason: _Optional[str] = ..., lease_token: _Optional[str] = ...) -> None: ...

class ReleaseJobResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ReloadProblemsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ReloadProblemsResponse(_message.Message):
    __slots__ = ["added", "added_names", "changed", "changed_names", "removed", "removed_names", "rerouted_jobs", "total"]
    ADDED_FIELD_NUMBER: _ClassVar[int]
    ADDED_NAMES_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    CHANGED_NAMES_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_NAMES_FIELD_NUMBER: _ClassVar[int]
    REROUTED_JOBS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    added: int
    added_names: _containers.RepeatedScalarFieldContainer[str]
    changed: int
    changed_names: _containers.RepeatedScalarFieldContainer[str]
    removed: int
    removed_names: _containers.RepeatedScalarFieldContainer[str]
    rerouted_jobs: int
    total: int
    def __init__(self, added: _Optional[int] = ..., changed: _Optional[int] = ..., removed: _Optional[int] = ..., total: _Optional[int] = ..., added_names: _Optional[_Iterable[str]] = ..., changed_names: _Optional[_Iterable[str]] = ..., removed_names: _Optional[_Iterable[str]] = ..., rerouted_jobs: _Optional[int] = ...) -> None: ...

class RenewLeaseRequest(_message.Message):
    __slots__ = ["job_id", "lease_token", "worker_id"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    LEASE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    lease_token: str
    worker_id: str
    def __init__(self, worker_id: _Optional[str] = ..., job_id: _Optional[str] = ..., lease_token: _Optional[str] = ...) -> None: ...

class RenewLeaseResponse(_message.Message):
    __slots__ = ["still_yours"]
    STILL_YOURS_FIELD_NUMBER: _ClassVar[int]
    still_yours: bool
    def __init__(self, still_yours: bool = ...) -> None: ...

class ReportProgressRequest(_message.Message):
    __slots__ = ["done", "job_id", "lease_token", "stage", "total", "worker_id"]
    DONE_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    LEASE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    done: int
    job_id: str
    lease_token: str
    stage: Stage
    total: int
    worker_id: str
    def __init__(self, worker_id: _Optional[str] = ..., job_id: _Optional[str] = ..., stage: _Optional[_Union[Stage, str]] = ..., done: _Optional[int] = ..., total: _Optional[int] = ..., lease_token: _Optional[str] = ...) -> None: ...

class ReportProgressResponse(_message.Message):
    __slots__ = ["still_yours"]
    STILL_YOURS_FIELD_NUMBER: _ClassVar[int]
    still_yours: bool
    def __init__(self, still_yours: bool = ...) -> None: ...

class RunSpec(_message.Message):
    __slots__ = ["baselines_only", "cached_baselines", "compile_only", "filename", "job_id", "launch_plan", "plan_first_line", "problem", "reference_module", "reference_source", "seed", "source", "spec_toml"]
    BASELINES_ONLY_FIELD_NUMBER: _ClassVar[int]
    CACHED_BASELINES_FIELD_NUMBER: _ClassVar[int]
    COMPILE_ONLY_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    LAUNCH_PLAN_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIRST_LINE_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_MODULE_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_SOURCE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SPEC_TOML_FIELD_NUMBER: _ClassVar[int]
    baselines_only: bool
    cached_baselines: _containers.RepeatedCompositeFieldContainer[BaselineTiming]
    compile_only: bool
    filename: str
    job_id: str
    launch_plan: str
    plan_first_line: int
    problem: str
    reference_module: str
    reference_source: str
    seed: int
    source: str
    spec_toml: str
    def __init__(self, job_id: _Optional[str] = ..., problem: _Optional[str] = ..., spec_toml: _Optional[str] = ..., reference_source: _Optional[str] = ..., source: _Optional[str] = ..., launch_plan: _Optional[str] = ..., plan_first_line: _Optional[int] = ..., compile_only: bool = ..., seed: _Optional[int] = ..., cached_baselines: _Optional[_Iterable[_Union[BaselineTiming, _Mapping]]] = ..., filename: _Optional[str] = ..., reference_module: _Optional[str] = ..., baselines_only: bool = ...) -> None: ...

class ShapeTiming(_message.Message):
    __slots__ = ["shape", "timing"]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    TIMING_FIELD_NUMBER: _ClassVar[int]
    shape: str
    timing: Timing
    def __init__(self, shape: _Optional[str] = ..., timing: _Optional[_Union[Timing, _Mapping]] = ...) -> None: ...

class Speedup(_message.Message):
    __slots__ = ["baseline", "shape", "speedup"]
    BASELINE_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    SPEEDUP_FIELD_NUMBER: _ClassVar[int]
    baseline: str
    shape: str
    speedup: float
    def __init__(self, shape: _Optional[str] = ..., baseline: _Optional[str] = ..., speedup: _Optional[float] = ...) -> None: ...

class Stats(_message.Message):
    __slots__ = ["baseline", "compile_only_jobs", "compile_rate", "compiled", "correct", "correctness_rate", "default_baseline", "fast_p", "geomean_speedup", "jobs", "kernelbench", "per_problem", "problems", "verdicts", "with_speedup"]
    class VerdictsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    BASELINE_FIELD_NUMBER: _ClassVar[int]
    COMPILED_FIELD_NUMBER: _ClassVar[int]
    COMPILE_ONLY_JOBS_FIELD_NUMBER: _ClassVar[int]
    COMPILE_RATE_FIELD_NUMBER: _ClassVar[int]
    CORRECTNESS_RATE_FIELD_NUMBER: _ClassVar[int]
    CORRECT_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_BASELINE_FIELD_NUMBER: _ClassVar[int]
    FAST_P_FIELD_NUMBER: _ClassVar[int]
    GEOMEAN_SPEEDUP_FIELD_NUMBER: _ClassVar[int]
    JOBS_FIELD_NUMBER: _ClassVar[int]
    KERNELBENCH_FIELD_NUMBER: _ClassVar[int]
    PER_PROBLEM_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    VERDICTS_FIELD_NUMBER: _ClassVar[int]
    WITH_SPEEDUP_FIELD_NUMBER: _ClassVar[int]
    baseline: str
    compile_only_jobs: int
    compile_rate: float
    compiled: int
    correct: int
    correctness_rate: float
    default_baseline: bool
    fast_p: _containers.RepeatedCompositeFieldContainer[FastP]
    geomean_speedup: float
    jobs: int
    kernelbench: Stats
    per_problem: ProblemSetStats
    problems: _containers.RepeatedCompositeFieldContainer[ProblemStats]
    verdicts: _containers.ScalarMap[str, int]
    with_speedup: int
    def __init__(self, jobs: _Optional[int] = ..., compiled: _Optional[int] = ..., correct: _Optional[int] = ..., compile_rate: _Optional[float] = ..., correctness_rate: _Optional[float] = ..., fast_p: _Optional[_Iterable[_Union[FastP, _Mapping]]] = ..., geomean_speedup: _Optional[float] = ..., with_speedup: _Optional[int] = ..., baseline: _Optional[str] = ..., verdicts: _Optional[_Mapping[str, int]] = ..., problems: _Optional[_Iterable[_Union[ProblemStats, _Mapping]]] = ..., default_baseline: bool = ..., kernelbench: _Optional[_Union[Stats, _Mapping]] = ..., compile_only_jobs: _Optional[int] = ..., per_problem: _Optional[_Union[ProblemSetStats, _Mapping]] = ...) -> None: ...

class SubmitBatchItem(_message.Message):
    __slots__ = ["error", "error_code", "job", "job_id"]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    JOB_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    error: str
    error_code: int
    job: Job
    job_id: str
    def __init__(self, job_id: _Optional[str] = ..., job: _Optional[_Union[Job, _Mapping]] = ..., error_code: _Optional[int] = ..., error: _Optional[str] = ...) -> None: ...

class SubmitBatchRequest(_message.Message):
    __slots__ = ["requests"]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[SubmitRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[SubmitRequest, _Mapping]]] = ...) -> None: ...

class SubmitBatchResponse(_message.Message):
    __slots__ = ["items"]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[SubmitBatchItem]
    def __init__(self, items: _Optional[_Iterable[_Union[SubmitBatchItem, _Mapping]]] = ...) -> None: ...

class SubmitRequest(_message.Message):
    __slots__ = ["baselines_only", "compile_only", "filename", "idempotency_key", "launch_plan", "problem", "public", "source", "tags"]
    class TagsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    BASELINES_ONLY_FIELD_NUMBER: _ClassVar[int]
    COMPILE_ONLY_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    LAUNCH_PLAN_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    baselines_only: bool
    compile_only: bool
    filename: str
    idempotency_key: str
    launch_plan: str
    problem: str
    public: bool
    source: str
    tags: _containers.ScalarMap[str, str]
    def __init__(self, problem: _Optional[str] = ..., source: _Optional[str] = ..., launch_plan: _Optional[str] = ..., compile_only: bool = ..., tags: _Optional[_Mapping[str, str]] = ..., filename: _Optional[str] = ..., public: bool = ..., idempotency_key: _Optional[str] = ..., baselines_only: bool = ...) -> None: ...

class SubmitResponse(_message.Message):
    __slots__ = ["job", "job_id"]
    JOB_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job: Job
    job_id: str
    def __init__(self, job_id: _Optional[str] = ..., job: _Optional[_Union[Job, _Mapping]] = ...) -> None: ...

class TensorInfo(_message.Message):
    __slots__ = ["dtype", "name", "role", "shape"]
    DTYPE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    dtype: str
    name: str
    role: str
    shape: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., dtype: _Optional[str] = ..., shape: _Optional[_Iterable[str]] = ..., role: _Optional[str] = ...) -> None: ...

class TestOutcome(_message.Message):
    __slots__ = ["detail", "first_mismatches", "max_abs_error", "max_rel_error", "mismatch_count", "passed", "rel_l2_error", "shape", "unwritten_count"]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    FIRST_MISMATCHES_FIELD_NUMBER: _ClassVar[int]
    MAX_ABS_ERROR_FIELD_NUMBER: _ClassVar[int]
    MAX_REL_ERROR_FIELD_NUMBER: _ClassVar[int]
    MISMATCH_COUNT_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    REL_L2_ERROR_FIELD_NUMBER: _ClassVar[int]
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    UNWRITTEN_COUNT_FIELD_NUMBER: _ClassVar[int]
    detail: str
    first_mismatches: _containers.RepeatedCompositeFieldContainer[Mismatch]
    max_abs_error: float
    max_rel_error: float
    mismatch_count: int
    passed: bool
    rel_l2_error: float
    shape: str
    unwritten_count: int
    def __init__(self, shape: _Optional[str] = ..., passed: bool = ..., max_abs_error: _Optional[float] = ..., max_rel_error: _Optional[float] = ..., rel_l2_error: _Optional[float] = ..., mismatch_count: _Optional[int] = ..., first_mismatches: _Optional[_Iterable[_Union[Mismatch, _Mapping]]] = ..., detail: _Optional[str] = ..., unwritten_count: _Optional[int] = ...) -> None: ...

class Timing(_message.Message):
    __slots__ = ["checked_samples", "event_overhead_us", "floor_us", "input_sets", "max_us", "mean_us", "median_us", "min_us", "p50_us", "p95_us", "p99_us", "rel_std_error", "samples", "samples_us", "sm_clock_mhz", "sol_percent", "std_us", "throttled_samples"]
    CHECKED_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    EVENT_OVERHEAD_US_FIELD_NUMBER: _ClassVar[int]
    FLOOR_US_FIELD_NUMBER: _ClassVar[int]
    INPUT_SETS_FIELD_NUMBER: _ClassVar[int]
    MAX_US_FIELD_NUMBER: _ClassVar[int]
    MEAN_US_FIELD_NUMBER: _ClassVar[int]
    MEDIAN_US_FIELD_NUMBER: _ClassVar[int]
    MIN_US_FIELD_NUMBER: _ClassVar[int]
    P50_US_FIELD_NUMBER: _ClassVar[int]
    P95_US_FIELD_NUMBER: _ClassVar[int]
    P99_US_FIELD_NUMBER: _ClassVar[int]
    REL_STD_ERROR_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_US_FIELD_NUMBER: _ClassVar[int]
    SM_CLOCK_MHZ_FIELD_NUMBER: _ClassVar[int]
    SOL_PERCENT_FIELD_NUMBER: _ClassVar[int]
    STD_US_FIELD_NUMBER: _ClassVar[int]
    THROTTLED_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    checked_samples: int
    event_overhead_us: float
    floor_us: float
    input_sets: int
    max_us: float
    mean_us: float
    median_us: float
    min_us: float
    p50_us: float
    p95_us: float
    p99_us: float
    rel_std_error: float
    samples: int
    samples_us: _containers.RepeatedScalarFieldContainer[float]
    sm_clock_mhz: float
    sol_percent: float
    std_us: float
    throttled_samples: int
    def __init__(self, median_us: _Optional[float] = ..., mean_us: _Optional[float] = ..., std_us: _Optional[float] = ..., min_us: _Optional[float] = ..., max_us: _Optional[float] = ..., p95_us: _Optional[float] = ..., samples: _Optional[int] = ..., rel_std_error: _Optional[float] = ..., p99_us: _Optional[float] = ..., p50_us: _Optional[float] = ..., throttled_samples: _Optional[int] = ..., sm_clock_mhz: _Optional[float] = ..., input_sets: _Optional[int] = ..., checked_samples: _Optional[int] = ..., sol_percent: _Optional[float] = ..., floor_us: _Optional[float] = ..., event_overhead_us: _Optional[float] = ..., samples_us: _Optional[_Iterable[float]] = ...) -> None: ...

class WatchJobRequest(_message.Message):
    __slots__ = ["job_id"]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    def __init__(self, job_id: _Optional[str] = ...) -> None: ...

class WatchJobsRequest(_message.Message):
    __slots__ = ["job_ids"]
    JOB_IDS_FIELD_NUMBER: _ClassVar[int]
    job_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, job_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class Verdict(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class JobState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Stage(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class BaselineKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
