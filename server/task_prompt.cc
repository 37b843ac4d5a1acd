#include "server/task_prompt.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kjudge::server {
namespace {

std::string TensorLines(const ProblemSpec& spec) {
  std::string out;
  for (const TensorSpec& tensor : spec.tensors) {
    std::vector<std::string> dims;
    dims.reserve(tensor.shape.size());
    for (const Expr& dim : tensor.shape) dims.push_back(dim.ToString());
    absl::StrAppend(&out, "  ", tensor.name, " : ", std::string(DTypeName(tensor.dtype)), "[",
                    absl::StrJoin(dims, ", "), "]  ", tensor.role == TensorRole::kIn ? "input" : "output",
                    " (", std::string(DTypeCudaName(tensor.dtype)), "*, row-major, contiguous)\n");
  }
  for (const ScalarSpec& scalar : spec.scalars) {
    absl::StrAppend(&out, "  ", scalar.name, " : ", std::string(DTypeName(scalar.dtype)), " scalar = ",
                    scalar.value.is_float ? absl::StrCat(scalar.value.f) : absl::StrCat(scalar.value.i), "\n");
  }
  return out;
}

std::string ShapeList(const std::vector<Shape>& shapes) {
  std::vector<std::string> labels;
  labels.reserve(shapes.size());
  for (const Shape& shape : shapes) labels.push_back(shape.Label());
  return absl::StrJoin(labels, "; ");
}

constexpr char kFormat[] = R"(## Submission format
Reply with ONE CUDA C++ file of device code (compiled by NVRTC for the judging GPU, e.g. sm_90a
on Hopper; no host code runs). Standard headers work in device code: <cmath>, <cfloat>,
<cstdint>, <climits>, <limits>, <type_traits>, <algorithm> (std::min/max), <cassert>, <cstdio>
(printf), ... with INFINITY, FLT_MAX, M_PI; so do cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, mma.h,
cooperative_groups.h, cuda/pipeline and block/warp-level cub (<cub/cub.cuh>). Host-only headers
(<iostream>, <vector>, <torch/extension.h>...) are a compile error. The file must contain a
launch plan in a block comment that starts with `kjudge-plan`. Each statement ends with ';':
  scratch NAME : DTYPE[EXPR];                  a device buffer (contents undefined at start)
  KERNEL<<<GRID, BLOCK>>>(ARGS);               GRID/BLOCK: an expression or dim3(x, y, z)
  KERNEL<<<GRID, BLOCK, SHMEM_BYTES>>>(ARGS);  dynamic shared memory (> 48 KB is allowed)
  KERNEL<TEMPLATE_ARGS><<<...>>>(ARGS);        template instantiation
Expressions use the size and scalar names, integers, + - * / %, cdiv(a, b), min, max.
A bare tensor or scratch name passes its device pointer; any other argument is a scalar,
written with the size of the kernel parameter (int for 4 bytes, long long for 8; float scalars
need float parameters). Launches run in order on one stream.

## How it is judged
On several test shapes (including tiny and odd ones) with fresh random inputs and a secret
seed, your outputs are compared with a trusted reference: |out - ref| <= atol + rtol*|ref|
elementwise and a relative L2 error bound; NaN/Inf never pass, every output element must be
written (outputs start as NaN), inputs must not be modified. Then the plan is timed with CUDA
events on the benchmark shapes (L2 flushed before each run, inputs rotated, outputs re-checked)
and compared with the baselines. Caching results across calls, skipping work when timed, or
lowering precision below the tolerance fails.
)";

}  // namespace

std::string BuildTaskPrompt(const ProblemFiles& files, const std::string& starter_source) {
  const ProblemSpec& spec = files.spec;
  std::string prompt = absl::StrCat("# Task: ", spec.name, " (", spec.title, ")\n\n", spec.description, "\n\n");
  absl::StrAppend(&prompt, "## Tensors and scalars\n", TensorLines(spec), "\n");
  absl::StrAppend(&prompt, "Sizes: ", absl::StrJoin(spec.sizes, ", "), "\n");
  absl::StrAppend(&prompt, "Test shapes: ", ShapeList(spec.test_shapes), "\n");
  absl::StrAppend(&prompt, "Benchmark shapes: ", ShapeList(spec.bench_shapes), "\n");
  absl::StrAppend(&prompt, "Tolerance: atol ", spec.tolerance.atol, ", rtol ", spec.tolerance.rtol,
                  ", relative L2 ", spec.tolerance.rel_l2, "\n\n");
  absl::StrAppend(&prompt, kFormat);
  if (!starter_source.empty()) {
    absl::StrAppend(&prompt, "\n## Starting point\n```cuda\n", starter_source,
                    starter_source.back() == '\n' ? "" : "\n", "```\n");
  }
  return prompt;
}

}  // namespace kjudge::server
