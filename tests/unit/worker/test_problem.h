// A small ReLU problem for runner tests (inline, so tests do not depend on the catalog).
#pragma once

#include <string>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge::runner::testing {

inline const char* kReluSpec = R"(name = "test/relu"
level = 1
title = "ReLU"
description = "relu"
sizes = ["M", "N"]
test_shapes = [ { M = 1, N = 1 }, { M = 3, N = 37 }, { M = 5, N = 4099 } ]
bench_shapes = [ { M = 64, N = 4096 } ]

[[tensor]]
name = "X"
dtype = "f32"
shape = ["M", "N"]
role = "in"
init = { dist = "normal", mean = 0.0, std = 1.0 }

[[tensor]]
name = "Y"
dtype = "f32"
shape = ["M", "N"]
role = "out"

[reference]
source = "reference.cu"
plan = """relu_ref<<<cdiv(M * N, 256), 256>>>(X, Y, M * N);"""

[tolerance]
atol = 1e-6
rtol = 1e-6
rel_l2 = 1e-6

[cost]
flops = "M * N"
bytes = "8 * M * N"
)";

inline const char* kReluReference = R"(
extern "C" __global__ void relu_ref(const float* X, float* Y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) Y[i] = X[i] > 0.0f ? X[i] : 0.0f;
}
)";

// A correct templated candidate with its plan in a kjudge-plan block (plan on line 3).
inline const char* kReluCandidate = R"(// candidate
/* kjudge-plan
relu<256><<<cdiv(M * N, 256), 256>>>(X, Y, M * N);
*/
template <int B>
__global__ void relu(const float* X, float* Y, long long n) {
  long long i = (long long)blockIdx.x * B + threadIdx.x;
  if (i < n) Y[i] = fmaxf(X[i], 0.0f);
}
)";

inline v1::RunSpec ReluRunSpec(const std::string& source, bool compile_only) {
  v1::RunSpec spec;
  spec.set_job_id("test-job");
  spec.set_problem("test/relu");
  spec.set_spec_toml(kReluSpec);
  spec.set_reference_source(kReluReference);
  spec.set_source(source);
  spec.set_filename("solution.cu");
  spec.set_compile_only(compile_only);
  spec.set_seed(42);
  return spec;
}

}  // namespace kjudge::runner::testing
