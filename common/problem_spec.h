// ProblemSpec: one problem of the catalog, parsed from its `problem.toml`.
//
// The file format (TOML; every key below is required unless marked optional):
//
//   name = "level1/19_ReLU"          # must equal the directory path under problems/
//   level = 1
//   title = "ReLU"
//   description = """..."""          # the text an LLM is prompted with
//   sizes = ["M", "N"]
//   test_shapes  = [ { M = 1, N = 1 }, { M = 3, N = 37 } ]   # every size named, values >= 1
//                  # a test shape may add input_scale = 1000.0 (> 0, default 1): its float
//                  # inputs are drawn from init scaled by it (label "M=4,N=1000,scale=1000");
//                  # numerically sensitive problems must have one (tests/catalog)
//   bench_shapes = [ { M = 4096, N = 393216 } ]
//   example = "solution.cu"          # optional: a correct submission (a .cu with a plan block)
//   regimes = ["offset", "large"]    # optional (default []): input regimes besides the declared
//                                    # init that the judge may draw an input set in, secretly,
//                                    # per set (test shapes, warm-up, each timed sample,
//                                    # re-check): any of "offset", "large", "ties", "zeros",
//                                    # "positive", "negative", each at most once; "declared" is
//                                    # implicit and not listed. They bend only float "in"
//                                    # tensors whose init is scalable (common/input_regime.h
//                                    # defines each; problems/README.md, the rule that admits
//                                    # one: the float64 oracle).
//
//   [[tensor]]                       # one table per tensor, in kernel-argument order
//   name = "X"
//   dtype = "f32"
//   shape = ["M", "N"]               # expressions over sizes
//   role = "in"                      # "in" or "out"
//   init = { dist = "normal", mean = 0.0, std = 1.0 }   # inputs only; or
//          { dist = "uniform", low = -1.0, high = 1.0 }
//          # optional scalable = false: input_scale of test shapes does not apply
//          # optional transform, applied to the drawn values (float dtypes only):
//          #   "softmax"   softmax along the last dim (rank >= 1): rows are distributions
//          #   "tril"      zero above the diagonal of the last two dims (rank >= 2)
//          #   "triu"      zero below the diagonal of the last two dims (rank >= 2)
//          #   "symmetric" (A + A^T) / 2 over the last two dims (rank >= 2, square at
//          #               every shape)
//          #   "sign"      +1 where the draw is >= 0, else -1 (any rank): +-1 targets
//          # (docs/pytorch-problems.md; problems/README.md)
//          # input_scale multiplies the draw BEFORE the transform; the transform's output is
//          # never rescaled (a softmax row still sums to 1). See InitSpec::Transform.
//
//   [[scalar]]                       # optional: fixed scalar arguments, usable in plans
//   name = "negative_slope"
//   dtype = "f32"
//   value = 0.01
//
//   [reference]                      # source + plan, or module, or all three
//   source = "reference.cu"          # trusted CUDA reference, relative to the problem directory
//   plan = """relu_ref<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"""   # with source, always
//   module = "reference.py"          # optional: a PyTorch module in KernelBench's form (a file
//                                    # name in the problem directory, no '/', ending ".py");
//                                    # with it, the [module] table is required, and the problem
//                                    # without source needs a worker with PyTorch (the oracle,
//                                    # docs/pytorch-problems.md)
//
//   [module]                         # only with reference.module: how the module binds to the spec
//   globals = ["M"]                  # optional: sizes that are int globals of reference.py
//   forward = ["X"]                  # "in" tensors passed to Model.forward, in order
//   outputs = ["Y"]                  # "out" tensors, in the order forward returns them
//   precision = "f64"                # optional: the oracle's arithmetic, "f64" (default) or "f32"
//   bench_precision = "f32"          # optional: the same at bench shapes (default: precision)
//   [module.parameters]              # optional: state_dict key -> "in" tensor (quote keys
//   "linear.weight" = "W"            #   with dots: "linear.weight", not linear.weight)
//   Every "in" tensor is in forward or a parameters value, exactly once; every "out" tensor
//   is in outputs exactly once.
//
//   [tolerance]
//   atol = 1e-5
//   rtol = 1e-5
//   rel_l2 = 1e-4                    # bound on ||out - ref|| / ||ref||
//
//   [cost]
//   flops = "M * N"                  # expressions over sizes
//   bytes = "8 * M * N"              # minimum bytes moved
//   flops_lower_bound = false        # optional (default false): true only when `flops` is a
//                                    # lower bound for EVERY correct algorithm, not just the
//                                    # obvious one; only then may a kernel faster than
//                                    # flops / compute rate be judged SUSPICIOUS (ceilings.h).
//                                    # A GEMM's 2MNK is not (Strassen-like and algebraic
//                                    # rewrites do less), nor is any count an exact rewrite
//                                    # could shrink (level2/14: a sum of a GEMM is a GEMV).
//   min_flops = "7 * M * N * K / 4"  # optional: the fewest flops ANY correct algorithm does
//                                    # (for a GEMM: 2MNK less one level of Strassen's
//                                    # savings); the compute term of the SUSPICIOUS floor.
//                                    # flops_lower_bound = true means min_flops = flops.
//
//   [[baseline]]                     # optional: library baselines besides the reference
//   name = "cublas"
//   kind = "cublas_gemm"             # the runner's registry of library baselines
//   params = { a = "A", b = "B", c = "C", m = "N", n = "N", k = "N" }
//
// Contract: ParseProblemSpec validates everything it can without a GPU: names unique and
// C identifiers, every expression parses and uses only declared sizes, every shape names every
// size, the reference plan parses and refers only to tensors, scalars, sizes and its own
// scratch. The [module] binding names only declared sizes and tensors of the right role, each
// tensor exactly once (the rule above the struct). Unknown keys are errors (typos do not pass
// silently); `init` is required on "in"
// tensors and rejected on "out" ones; at least one tensor is "out". Every tensor shape, cost
// expression and reference-plan value is also evaluated at every test and bench shape (no
// overflow, no division by zero, grid/block sizes >= 1). Errors are InvalidArgumentError
// "<origin>:<line>:<column>: <key path>: <what was wrong; what was expected>", e.g.
// "p/problem.toml:14:16: tensor[0].shape[1]: unknown size 'K' in 'K * 2'; expected one of ...".
// Plans inside TOML strings report file lines and columns.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/dtype.h"
#include "common/expression.h"
#include "common/input_regime.h"
#include "common/launch_plan.h"

namespace kjudge {

enum class TensorRole { kIn, kOut };

struct InitSpec {
  enum class Dist { kNormal, kUniform } dist = Dist::kNormal;
  double a = 0.0;  // mean, or low
  double b = 1.0;  // std, or high
  // false (init key `scalable = false`): a test shape's input_scale leaves this tensor alone,
  // for inputs whose values encode something other than magnitude (class selectors in [0, 1)).
  bool scalable = true;
  // Applied after the draw (and after input_scale), in the tensor's dtype, so an input can
  // have the structure a problem is about (KernelBench's level1/13-15 and 98). Deterministic
  // functions of the drawn values, so inputs stay a function of (seed, tensor, index).
  enum class Transform { kNone, kSoftmax, kTril, kTriu, kSymmetric, kSign };
  Transform transform = Transform::kNone;
};

// "softmax", "tril", ... ("" for kNone); the spelling of problem.toml.
std::string_view TransformName(InitSpec::Transform transform);
// The rank a transform needs (softmax 1, the matrix ones 2; 0 for kNone and sign).
int TransformMinRank(InitSpec::Transform transform);

struct TensorSpec {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<Expr> shape;
  TensorRole role = TensorRole::kIn;
  InitSpec init;
};

struct ScalarSpec {
  std::string name;
  DType dtype = DType::kF32;
  Value value;
};

// One assignment of every size, e.g. {M: 3, N: 37}, and (test shapes only) the scale of the
// random inputs.
struct Shape {
  std::map<std::string, int64_t> sizes;
  // "M=3,N=37" in the order of ProblemSpec::sizes; ",scale=1000" appended when input_scale
  // is not 1, so results name the stress shape.
  std::string Label() const;
  std::vector<std::string> order;
  // Every float input drawn from `init` is multiplied by this (normal: mean and std scaled;
  // uniform: low and high): large-magnitude stress inputs that overflow an unstable exp while
  // stable math stays exact. Integer tensors are not scaled. See ScaledInit().
  double input_scale = 1.0;
};

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
  double rel_l2 = 0.0;
};

struct CostModel {
  Expr flops;
  Expr bytes;
  // `flops` is a true lower bound for any correct algorithm (declared by the problem): only
  // then does the compute term enter the floor below which a timing is SUSPICIOUS.
  bool flops_lower_bound = false;
  // The fewest flops any correct algorithm does ([cost] min_flops), when declared: the compute
  // term of the SUSPICIOUS floor (flops itself when flops_lower_bound; none when neither).
  std::optional<Expr> min_flops;
};

struct LibraryBaselineSpec {
  std::string name;
  std::string kind;
  std::map<std::string, std::string> params;
};

// How a problem's PyTorch module (reference.py, KernelBench's form) binds to the spec's names:
// the [module] table. The oracle builds and runs the module from this
// (worker/oracle/kjudge_oracle/module_problem.py).
struct ModuleBinding {
  std::string module_file;                  // [reference] module, e.g. "reference.py"
  std::vector<std::string> globals;         // sizes that are int globals of the module
  std::vector<std::string> forward;         // "in" tensors passed to forward, in order
  std::vector<std::pair<std::string, std::string>> parameters;  // state_dict key -> "in" tensor
  std::vector<std::string> outputs;         // "out" tensors, in the order forward returns them
  std::string precision = "f64";            // "f64" or "f32"
  std::string bench_precision;              // "" = precision
};

struct ProblemSpec {
  std::string name;
  int level = 1;
  std::string title;
  std::string description;
  std::vector<std::string> sizes;
  std::vector<Shape> test_shapes;
  std::vector<Shape> bench_shapes;
  std::vector<TensorSpec> tensors;
  std::vector<ScalarSpec> scalars;
  std::string reference_source_file;  // "" when the problem has only a module reference
  LaunchPlan reference_plan;          // empty when reference_source_file is ""
  std::optional<ModuleBinding> module;  // [reference] module and [module]; nullopt when none
  Tolerance tolerance;
  CostModel cost;
  std::vector<LibraryBaselineSpec> baselines;
  std::string example_file;  // "" when none
  // The top-level `regimes`, in file order: distinct, never kDeclared (which every problem has
  // implicitly). Empty when the key is absent: every input set is drawn as declared.
  std::vector<InputRegime> regimes;

  // Sizes of `shape` plus every scalar: what plan and shape expressions are evaluated against.
  Bindings BindingsFor(const Shape& shape) const;
  // Element count of a tensor at a shape.
  absl::StatusOr<int64_t> ElementCount(const TensorSpec& tensor, const Shape& shape) const;
  const TensorSpec* FindTensor(std::string_view name) const;
  // The regimes an input set may be drawn in: kDeclared first, then `regimes` in file order.
  std::vector<InputRegime> DrawableRegimes() const;
  // A CUDA reference (source + plan) exists: the judge can compute expected outputs without
  // PyTorch. False for module-only problems, which only workers with an oracle can judge.
  bool HasCudaReference() const { return !reference_source_file.empty(); }
};

// `init` for a tensor of `dtype` at `input_scale`: both parameters multiplied for float dtypes
// (normal: mean, std; uniform: low, high), unchanged for integer ones and for inits marked
// scalable = false. The transform is kept: it applies to the scaled draw (a softmax of scaled
// logits is sharper but still sums to 1; tril/triu/symmetric commute with scaling; sign
// ignores it).
InitSpec ScaledInit(const InitSpec& init, DType dtype, double input_scale);

absl::StatusOr<ProblemSpec> ParseProblemSpec(std::string_view toml_text, std::string_view origin);

// Checks that a (submitted) plan refers only to the problem's tensors, scalars, sizes and the
// plan's own scratch buffers, that scratch names do not shadow anything, and that every launch
// has at least one argument; then ValidatePlanSizes. Errors carry the plan's line:column.
absl::Status ValidatePlanAgainstSpec(const LaunchPlan& plan, const ProblemSpec& spec);

// Evaluates every size a plan computes at every test and bench shape of `spec`, with checked
// 64-bit arithmetic, before anything is allocated: scratch element counts >= 0 and their byte
// sizes (count * dtype size, each and summed) within CheckedBufferBytes' bound
// (common/byte_size.h: INT64_MAX minus 1 MiB of headroom for guards); grid and block
// components >= 0 with products that fit in int64; shared memory >= 0; every template
// argument and scalar argument evaluates (no overflow, no division by zero). So a validated
// plan's sizes are safe to compute again with CheckedBufferBytes at those shapes. Errors are
// "<line>:<column>: <what> '<expr>': <what overflowed or was negative> (at M=..,N=..)".
// Zero grids and limits of the device are the runner's business (LAUNCH_ERROR).
absl::Status ValidatePlanSizes(const LaunchPlan& plan, const ProblemSpec& spec);

}  // namespace kjudge
