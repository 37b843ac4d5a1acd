// The PyTorch oracle in the verdict protocol (docs/pytorch-problems.md §3, §4): for a problem
// with reference.py and no reference.cu it computes every expected output (test shapes at the
// module's precision, bench shapes at its bench precision) into buffers the judge shares with
// it (CUDA VMM, exported per call), and it times the torch_eager / torch_compile baselines over
// the judge's own protocol (TimeSamples), each checked once against the expected outputs.
// Two oracle processes: env_.oracle for expected outputs and torch_eager, env_.compile_oracle
// for torch.compile (its compile thread holds Python's GIL, which in one shared process slowed
// every later job's expected outputs ~40x on an H100).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/oracle_baselines.h"
#include "common/output_comparison.h"
#include "common/sha256.h"
#include "worker/gpu/runner_error.h"
#include "worker/judge/host_values.h"
#include "worker/gpu/str_util.h"
#include "worker/judge/verdict_protocol.h"
#include "worker/judge/verdict_protocol_internal.h"

namespace kjudge::runner {

using namespace verdict_detail;  // the protocol's own constants and helpers

namespace {

absl::Status OracleError(const absl::Status& status, std::string_view what) {
  if (status.ok()) return status;
  return MakeRunnerError(v1::INTERNAL_ERROR, Cat(what, ": ", std::string(status.message())));
}

// Timed runs of the module in the oracle, on the bench sets opened with bench_open.
class OracleSamples : public SampleSource {
 public:
  OracleSamples(oracle::OracleProcess& oracle, size_t sets) : oracle_(oracle), sets_(sets) {}
  size_t sets() const override { return sets_; }
  absl::Status WarmUp(size_t set) override { return oracle_.WarmUp(static_cast<int>(set)); }
  absl::StatusOr<RawSample> Sample(size_t set) override {
    absl::StatusOr<oracle::OracleSample> s = oracle_.Sample(static_cast<int>(set));
    if (!s.ok()) return s.status();
    return RawSample{s->elapsed_us, s->busy_after_stop};
  }

 private:
  oracle::OracleProcess& oracle_;
  size_t sets_;
};

// The descriptors a request carries, closed when it is answered.
struct Exported {
  std::vector<ScopedFd> fds;
  std::vector<oracle::OracleTensor> tensors;
};

absl::Status Export(const ProblemSpec& spec, const Shape& shape, const TensorSet& set,
                    TensorRole role, Exported* out) {
  const Bindings bindings = spec.BindingsFor(shape);
  for (const TensorSet::BufferView& b : set.Buffers()) {
    const TensorSpec* t = spec.FindTensor(b.name);
    if (t == nullptr || t->role != role) continue;
    if (!b.buffer->shared()) {
      return MakeRunnerError(v1::INTERNAL_ERROR,
                             Cat("tensor ", b.name, " is not in shared memory for the oracle"));
    }
    oracle::OracleTensor ot;
    ot.name = b.name;
    ot.dtype = std::string(DTypeName(t->dtype));
    for (const Expr& e : t->shape) {
      KJ_ASSIGN_OR_RETURN(int64_t d, e.EvaluateInt(bindings));
      ot.shape.push_back(d);
    }
    KJ_ASSIGN_OR_RETURN(int fd, b.buffer->Export());
    out->fds.emplace_back(fd);
    ot.fd = fd;
    ot.bytes = b.buffer->alloc_bytes();
    ot.offset = b.buffer->data_offset();
    out->tensors.push_back(std::move(ot));
  }
  return absl::OkStatus();
}

// torch.compile of `key` in the compile oracle: OK once ready. Not ready yet: an error that
// skips the baseline in this job (the first job starts the compile, a later one times it; no
// job waits). Failed: remembered by the keeper, so later jobs neither ask nor log it again.
absl::Status CompileReady(oracle::OracleKeeper& keeper, oracle::OracleProcess& oracle,
                          const std::string& key) {
  absl::StatusOr<oracle::CompileState> state = oracle.Compile(key);
  KJ_RETURN_IF_ERROR(OracleError(state.status(), "torch.compile"));
  if (state->state == "ready") return absl::OkStatus();
  if (state->state == "compiling") {
    return MakeRunnerError(v1::INTERNAL_ERROR,
                           "torch.compile is still compiling; not timed in this job");
  }
  keeper.set_compile_failed(key);  // "failed" (Compile() accepts no other state)
  return MakeRunnerError(
      v1::INTERNAL_ERROR,
      Cat(state->error.empty() ? "torch.compile failed" : state->error,
          "; this runner will not ask again (no torch_compile baseline for ", key, ")"));
}

}  // namespace

bool VerdictProtocol::OracleProblem() const {
  return setup_.spec.reference_source_file.empty() && setup_.spec.module.has_value() &&
         !run_.reference_module().empty();
}

bool VerdictProtocol::ModuleAvailable() const {
  return setup_.spec.module.has_value() && !run_.reference_module().empty() &&
         env_.oracle != nullptr && env_.oracle->available();
}

bool VerdictProtocol::CrossChecksOracle() const {
  return env_.oracle_cross_check && !OracleProblem() && ModuleAvailable();
}

absl::Status VerdictProtocol::CrossCheckOracle(const Shape& shape, TensorSet& tensors,
                                               const std::vector<std::vector<double>>& reference) {
  KJ_RETURN_IF_ERROR(tensors.PoisonOutputs(*env_.utilities, env_.stream));
  KJ_RETURN_IF_ERROR(RunOracleInto(shape, tensors, tensors, setup_.spec.module->precision));
  KJ_ASSIGN_OR_RETURN(std::vector<HostTensor> oracle, tensors.CopyOutputs(env_.stream));
  const Tolerance& tol = setup_.spec.tolerance;
  OutputComparator comparator({tol.atol, tol.rtol, tol.rel_l2});
  for (size_t t = 0; t < oracle.size() && t < reference.size(); ++t) {
    // reference.cu's outputs are judged against the oracle's (float64 by default): the same
    // rule, tolerance and detail a candidate gets.
    const HostTensor& h = oracle[t];
    comparator.AddTensor(h.name, reference[t], DecodeToDouble(h.dtype, h.bytes, h.count), {});
  }
  const ComparisonResult& result = comparator.Result();
  if (result.passed) {
    spdlog::info("{}: the PyTorch oracle agrees with reference.cu", shape.Label());
    return absl::OkStatus();
  }
  return MakeRunnerError(v1::INTERNAL_ERROR,
                         Cat("--oracle-cross-check: reference.cu disagrees with the PyTorch "
                             "oracle (reference.py, ", setup_.spec.module->precision, ") on ",
                             shape.Label(), ": ", result.detail));
}

absl::StatusOr<oracle::OracleProcess*> VerdictProtocol::Oracle(oracle::OracleKeeper* keeper) {
  // The compile oracle starts on its first need: Get() begins it (available() is false until).
  if (keeper == nullptr || (keeper == env_.oracle && !keeper->available())) {
    return MakeRunnerError(
        v1::INTERNAL_ERROR,
        Cat("this runner has no PyTorch oracle, which problem ", run_.problem(),
            " (reference.py, no reference.cu) needs",
            keeper != nullptr ? Cat(": ", keeper->why_not()) : std::string()));
  }
  absl::StatusOr<oracle::OracleProcess*> p = keeper->Get();
  if (!p.ok()) return OracleError(p.status(), Cat("starting a new ", keeper->name()));
  return p;
}

std::string VerdictProtocol::OracleKey(const Shape& shape) const {
  // The text's digest is part of the key: a server that reloads an edited reference.py must
  // not be answered by the module an oracle loaded from the old text.
  return Cat(run_.problem(), "|", shape.Label(), "|",
             Sha256Hex(run_.reference_module()).substr(0, 16));
}

absl::StatusOr<std::string> VerdictProtocol::OracleLoad(oracle::OracleKeeper* keeper,
                                                        const Shape& shape) {
  KJ_ASSIGN_OR_RETURN(oracle::OracleProcess * oracle, Oracle(keeper));
  const std::string key = OracleKey(shape);
  std::vector<std::string>& loaded = keeper->loaded();
  // The oracle keeps its keeper->keys() most recently used keys (load and every use); this list
  // mirrors that order (every use of a key comes through here first), so what it evicts is what
  // the oracle did.
  if (auto it = std::find(loaded.begin(), loaded.end(), key); it != loaded.end()) {
    std::rotate(it, it + 1, loaded.end());
    return key;
  }
  const ModuleBinding& m = *setup_.spec.module;  // set: OracleProblem()
  oracle::OracleLoad load;
  load.key = key;
  load.problem = run_.problem();
  load.filename = m.module_file.empty() ? "reference.py" : m.module_file;
  load.source = run_.reference_module();
  for (const std::string& g : m.globals) {
    const auto it = shape.sizes.find(g);
    if (it == shape.sizes.end()) {
      return MakeRunnerError(v1::INTERNAL_ERROR,
                             Cat("[module].globals names '", g, "', not a size of the spec"));
    }
    load.globals.emplace_back(g, it->second);
  }
  load.forward = m.forward;
  load.parameters = m.parameters;
  load.outputs = m.outputs;
  absl::StatusOr<double> ms = oracle->Load(load);
  KJ_RETURN_IF_ERROR(OracleError(ms.status(), Cat("loading the module at ", shape.Label())));
  loaded.push_back(key);
  if (loaded.size() > keeper->keys()) loaded.erase(loaded.begin());
  return key;
}

absl::Status VerdictProtocol::RunOracleInto(const Shape& shape, const TensorSet& inputs,
                                            const TensorSet& outputs,
                                            const std::string& precision) {
  KJ_ASSIGN_OR_RETURN(std::string key, OracleLoad(env_.oracle, shape));
  Exported exported;
  KJ_RETURN_IF_ERROR(Export(setup_.spec, shape, inputs, TensorRole::kIn, &exported));
  KJ_RETURN_IF_ERROR(Export(setup_.spec, shape, outputs, TensorRole::kOut, &exported));
  // The inputs were generated on the judge's stream; the oracle reads them from its own context.
  KJ_RETURN_IF_ERROR(SyncStatus(cudaStreamSynchronize(env_.stream), "inputs for the oracle"));
  KJ_ASSIGN_OR_RETURN(oracle::OracleProcess * oracle, Oracle(env_.oracle));
  absl::StatusOr<double> ms = oracle->Run(key, precision, "cuda", exported.tensors);
  if (ms.ok()) return absl::OkStatus();
  // The client's message names the oracle and the op; the callers name the shape.
  return MakeRunnerError(v1::INTERNAL_ERROR, std::string(ms.status().message()));
}

absl::StatusOr<TensorSet> VerdictProtocol::AllocateExpected(const Shape& shape) const {
  if (OracleProblem()) {
    return TensorSet::AllocateOutputsShared(setup_.spec, shape, guards_, env_.device);
  }
  return TensorSet::AllocateOutputs(setup_.spec, shape, guards_);
}

std::vector<std::string> VerdictProtocol::MissingOracleBaselines(const Shape& shape) const {
  std::vector<std::string> names;
  // Every problem with reference.py gets its torch_eager baselines (KernelBench's denominator
  // and the strict fp32 variant, common/oracle_baselines.h), whichever reference computes its
  // expected outputs.
  if (!ModuleAvailable()) return names;
  for (const char* name : kOracleBaselines) {
    if (std::string_view(name) == kTorchCompileBaseline &&
        (env_.compile_oracle == nullptr || env_.compile_oracle->gave_up() ||
         env_.compile_oracle->compile_failed(OracleKey(shape)))) {
      continue;  // --no-torch-compile, or it (or its oracle) failed here before: logged then
    }
    if (CachedBaseline(shape.Label(), name) == nullptr) names.emplace_back(name);
  }
  return names;
}

void VerdictProtocol::BeginCompileOracle() {
  if (env_.compile_oracle == nullptr) return;
  for (const Shape& shape : setup_.spec.bench_shapes) {
    const std::vector<std::string> missing = MissingOracleBaselines(shape);
    if (std::find(missing.begin(), missing.end(), kTorchCompileBaseline) != missing.end()) {
      return env_.compile_oracle->Begin();
    }
  }
}

absl::StatusOr<TimingResult> VerdictProtocol::TimeOracleBaseline(const Shape& shape,
                                                                 TensorSet& tensors,
                                                                 const std::string& mode) {
  // torch.compile lives in the compile oracle, from its compile to its timing (the compiled
  // module is that process's); torch_eager in the oracle of the expected outputs.
  oracle::OracleKeeper* keeper = mode == "compile" ? env_.compile_oracle : env_.oracle;
  KJ_ASSIGN_OR_RETURN(std::string key, OracleLoad(keeper, shape));
  KJ_ASSIGN_OR_RETURN(oracle::OracleProcess * oracle, Oracle(keeper));
  if (mode == "compile") KJ_RETURN_IF_ERROR(CompileReady(*keeper, *oracle, key));
  Exported exported;
  KJ_RETURN_IF_ERROR(Export(setup_.spec, shape, tensors, TensorRole::kIn, &exported));
  KJ_RETURN_IF_ERROR(Export(setup_.spec, shape, tensors, TensorRole::kOut, &exported));
  KJ_RETURN_IF_ERROR(SyncStatus(cudaStreamSynchronize(env_.stream), "inputs for the oracle"));
  KJ_RETURN_IF_ERROR(
      OracleError(oracle->BenchOpen(key, mode, "cuda", {exported.tensors}), "bench_open"));
  OracleSamples samples(*oracle, 1);
  absl::StatusOr<TimingResult> timing = TimeSamples(samples, env_.timing, nullptr);
  // Checked once like every baseline: its outputs on set 1 against the expected outputs.
  absl::Status checked = timing.ok() ? OracleError(oracle->WriteOutputs(0), "write_outputs")
                                     : absl::OkStatus();
  const absl::Status closed = oracle->alive() ? oracle->BenchClose() : absl::OkStatus();
  KJ_RETURN_IF_ERROR(OracleError(timing.status(), Cat("timing torch ", mode)));
  KJ_RETURN_IF_ERROR(checked);
  KJ_RETURN_IF_ERROR(OracleError(closed, "bench_close"));
  KJ_RETURN_IF_ERROR(CheckBaselineOutputs(shape, tensors));
  return timing;
}

}  // namespace kjudge::runner
