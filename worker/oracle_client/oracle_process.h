// OracleProcess: the judge's handle on the PyTorch oracle (`python3 -m kjudge_oracle --fd 3`,
// worker/oracle/), the trusted child that computes expected outputs and PyTorch baselines for
// problems defined by a PyTorch module (docs/pytorch-problems.md §3).
//
// Contract:
//  * Spawn() starts the interpreter with ChildProcess::Spawn: a SOCK_SEQPACKET socketpair at
//    its descriptor 3, stdin /dev/null, stdout and stderr into the judge's stderr (its log), an
//    environment of exactly PATH, HOME (a private temporary directory, removed with this
//    object) and PYTHONPATH (OraclePackagePath()), plus OracleOptions::env. It returns at once; AwaitHello() reads the
//    oracle's first packet (the hello) until its deadline, so the judge can measure the GPU
//    while torch imports. Start() is both.
//  * Request() sends one JSON object (at most kMaxPacketBytes), with descriptors (SCM_RIGHTS;
//    the caller keeps its own copies), and returns the reply object. Errors, each naming the
//    oracle and the op: no reply within the request timeout (the oracle is killed), the oracle
//    gone (how it ended), an unparsable or malformed reply (the oracle is killed: the stream
//    can no longer be trusted), a reply with "ok": false (the oracle keeps serving; the error
//    is its "error" text). A killed or dead oracle answers every later request with an error
//    at once: alive() is false and the owner starts a new one.
//  * The typed wrappers speak the ops of the protocol (load, run, bench_open, warmup, sample,
//    write_outputs, bench_close, compile); they add nothing but the JSON shape.
//  * No CUDA here: the descriptors are whatever the caller exports (CUDA VMM allocations on a
//    GPU host, memfds in "host" mode), so the protocol is tested on CPU.
//  * The destructor closes the socket (the oracle exits), waits up to a second, kills and reaps.
//    Not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "worker/process/child_process.h"
#include "worker/process/unique_fd.h"

namespace kjudge::oracle {

inline constexpr size_t kMaxPacketBytes = 4U << 20U;  // one JSON object, either direction
inline constexpr size_t kMaxPacketFds = 250;          // under the kernel's SCM_MAX_FD (253)
// A request's descriptors (one per tensor: a model's parameters are inputs, level3/10_ResNet101
// has 628) travel kMaxPacketFds to a packet, the first groups in {"op":"fds"} packets ahead of
// the request's own (docs/pytorch-problems.md §3).
inline constexpr size_t kMaxRequestFds = 4096;

struct OracleOptions {
  std::string name = "PyTorch oracle";  // how errors name it ("PyTorch compile oracle")
  std::string python;       // the interpreter; "": python3 found on PATH
  std::string package_dir;  // PYTHONPATH; "": OraclePackagePath()
  std::chrono::milliseconds hello_timeout{60000};
  std::chrono::milliseconds request_timeout{120000};
  std::string stderr_path;  // "": the oracle's stdout and stderr go to ours (the judge's log)
  std::vector<std::string> env;  // "NAME=value" added to PATH, HOME and PYTHONPATH
  // 0: every request waits for its reply (up to request_timeout). Else `load` and `compile`
  // wait at most this long, and a keeper's lazy start does not wait for the hello at all: an
  // oracle whose interpreter is held by a background compile (Triton's compiler keeps Python's
  // GIL for seconds) answers DeadlineExceeded "busy" at once instead of stalling a job. The
  // late reply is discarded when it comes; until then every such request is "busy" too.
  std::chrono::milliseconds patience{0};
  // How many loaded modules the process keeps (its LRU, `KJUDGE_ORACLE_KEYS`); the judge's
  // mirror of that LRU (OracleKeeper::loaded) uses the same number.
  size_t keys = 8;
};

struct OracleHello {
  std::string torch;   // torch.__version__
  bool cuda = false;   // false: CPU only, "host" memory only
  std::string device;  // the CUDA device's name, "" without one
};

// One tensor of a run or a bench set: `fd` is the caller's descriptor of the allocation that
// holds it (sent with the packet, not taken), `bytes` the whole allocation, `offset` the
// tensor's first element in it.
struct OracleTensor {
  std::string name;
  std::string dtype;  // "f32", "f16", ... (common/dtype.h names)
  std::vector<int64_t> shape;
  int fd = -1;
  uint64_t bytes = 0;
  uint64_t offset = 0;
};

// The binding of a module at one shape: what `load` carries besides the key.
struct OracleLoad {
  std::string key;  // "problem|shape label|reference.py digest" (opaque to the oracle)
  std::string problem;
  std::string filename;  // "reference.py"
  std::string source;
  std::vector<std::pair<std::string, int64_t>> globals;
  std::vector<std::string> forward;
  std::vector<std::pair<std::string, std::string>> parameters;  // state_dict key -> tensor
  std::vector<std::string> outputs;
};

struct OracleSample {
  double elapsed_us = 0.0;
  bool busy_after_stop = false;
};

struct CompileState {
  std::string state;  // "ready", "compiling" or "failed"
  std::string error;
};

// Where the oracle package is: <dir of this binary>/../share/kjudge/oracle when it holds
// kjudge_oracle/, else the source tree's worker/oracle (a build tree; KJUDGE_ORACLE_SOURCE_DIR
// at compile time), else $KJUDGE_ORACLE_PATH; NotFound saying all three when none is there.
absl::StatusOr<std::string> OraclePackagePath();

// The compile oracle's options: `eager`'s (its env kept, so it sees the same device), named
// "PyTorch compile oracle", KJUDGE_ORACLE_ROLE=compile (it builds no module itself: its loads
// answer at once, its compile children build and compile), Inductor on one compile thread (a compile takes one core from the
// judge's timings, not all), and with `cache_dir` non-empty, TORCHINDUCTOR_CACHE_DIR=<its
// absolute path>: a lasting cache that kjudge_oracle.warm_compile fills ahead with the same two
// variables. Empty: the oracle's private HOME, lost when it exits. Timeouts and patience are the
// caller's.
OracleOptions CompileOracleOptions(OracleOptions eager, const std::string& cache_dir);
// `flag` when given, else the first python3 on PATH; NotFound when there is none.
absl::StatusOr<std::string> OraclePython(const std::string& flag);

class OracleProcess {
 public:
  using Clock = std::chrono::steady_clock;

  static absl::StatusOr<std::unique_ptr<OracleProcess>> Spawn(const OracleOptions& options);
  static absl::StatusOr<std::unique_ptr<OracleProcess>> Start(const OracleOptions& options);
  ~OracleProcess();
  OracleProcess(const OracleProcess&) = delete;
  OracleProcess& operator=(const OracleProcess&) = delete;

  // The hello, read once (later calls return it again).
  absl::StatusOr<OracleHello> AwaitHello();
  bool alive() const { return alive_; }
  pid_t pid() const { return pid_; }
  // True once the hello was read or is waiting on the socket (never blocks).
  bool HelloArrived();

  absl::StatusOr<nlohmann::json> Request(const nlohmann::json& request,
                                         const std::vector<int>& fds = {});

  absl::StatusOr<double> Load(const OracleLoad& load);  // the oracle's ms
  absl::StatusOr<double> Run(const std::string& key, const std::string& precision,
                             const std::string& memory, const std::vector<OracleTensor>& tensors);
  absl::Status BenchOpen(const std::string& key, const std::string& mode,
                         const std::string& memory,
                         const std::vector<std::vector<OracleTensor>>& sets);
  absl::Status WarmUp(int set);
  absl::StatusOr<OracleSample> Sample(int set);
  absl::Status WriteOutputs(int set);
  absl::Status BenchClose();
  absl::StatusOr<CompileState> Compile(const std::string& key);

 private:
  OracleProcess(process::ChildProcess child, process::UniqueFd socket, std::string home,
                OracleOptions options);
  absl::Status Send(const std::string& op, const std::string& body, const std::vector<int>& fds);
  absl::StatusOr<nlohmann::json> Receive(const std::string& op, std::chrono::milliseconds timeout);
  absl::Status Fail(const std::string& op, const std::string& what, bool kill);
  absl::Status Gone(const std::string& op);

  process::ChildProcess child_;
  pid_t pid_;
  process::UniqueFd socket_;
  std::string home_;  // the private HOME, removed with this object
  OracleOptions options_;
  bool alive_ = true;
  bool hello_read_ = false;
  OracleHello hello_;
  int late_replies_ = 0;  // replies of impatient requests (options_.patience) not yet read
  // Reads the late replies: all of them, waiting (`wait`), or those already here (else
  // DeadlineExceeded "busy").
  absl::Status DrainLateReplies(const std::string& op, bool wait);
};

// OracleKeeper: one oracle of the runner across jobs. The runner has two (worker/judge/main.cc):
// the eager oracle (expected outputs, torch_eager), begun at start-up, and the compile oracle
// (torch.compile and torch_compile timings only), begun on the first job that needs it, so a
// compile's GIL is never the eager oracle's.
//  * Begin() spawns the process (returns at once; later calls do nothing): at start-up, before
//    the GPU is measured, or at a job's start so torch imports while the job runs. Finish()
//    waits for its hello (once) and keeps the torch version or why there is none. Disable()
//    stands for both: no oracle, `why` says why.
//  * Get() begins and finishes a keeper not begun yet (the lazy one: on its first need), then
//    hands out the live oracle, starting a new one (waiting for its hello) when the last was
//    killed or died. An oracle that never started gives "this runner has no <name>: <why>"
//    every time, without trying again.
//  * loaded() is the `load` keys the current process holds, most recently used last (cleared
//    when it is replaced): each keeper has its own, as each process has its own LRU.
//  * compile_failed(key): torch.compile of the key said "failed" in this keeper's oracle (torch
//    without torch.compile, a module Dynamo cannot trace); remembered across process restarts
//    so the judge asks and logs it once, not every job.
class OracleKeeper {
 public:
  explicit OracleKeeper(OracleOptions options) : options_(std::move(options)) {}
  void Begin();
  void Finish();
  void Disable(std::string why);
  const std::string& name() const { return options_.name; }
  const std::string& torch_version() const { return torch_; }
  const std::string& why_not() const { return why_not_; }
  bool available() const { return !torch_.empty(); }
  // It was begun and finished, and there is no oracle (Get() would only say why again).
  bool gave_up() const { return finished_ && !available(); }
  absl::StatusOr<OracleProcess*> Get();
  std::vector<std::string>& loaded() { return loaded_; }
  size_t keys() const { return options_.keys; }
  bool compile_failed(const std::string& key) const;
  void set_compile_failed(const std::string& key);

 private:
  OracleOptions options_;
  std::unique_ptr<OracleProcess> process_;
  bool begun_ = false;
  bool finished_ = false;
  std::string torch_;
  std::string why_not_ = "not started";
  std::vector<std::string> loaded_;
  std::vector<std::string> compile_failed_;
};

// The tensors as the protocol's T objects, each "fd" indexing `fds` (appended to).
nlohmann::json TensorsJson(const std::vector<OracleTensor>& tensors, std::vector<int>* fds);

}  // namespace kjudge::oracle
