// A complete, valid problem.toml for tests, and a helper to break it.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace kjudge::testing {

// Line numbers matter: tests assert error positions in this text.
inline constexpr std::string_view kValidSpec = R"toml(name = "level1/99_RowSum"
level = 1
title = "Row sum"
description = """
Sum each row of X (M x N) into Y, scaled by alpha."""
sizes = ["M", "N"]
test_shapes = [ { M = 1, N = 1 }, { M = 3, N = 37 } ]
bench_shapes = [ { M = 4096, N = 393216 } ]
example = "solution.cu"

[[tensor]]
name = "X"
dtype = "f32"
shape = ["M", "N"]
role = "in"
init = { dist = "normal", mean = 0.0, std = 1.0 }

[[tensor]]
name = "Y"
dtype = "f32"
shape = ["M"]
role = "out"

[[scalar]]
name = "alpha"
dtype = "f32"
value = 0.5

[reference]
source = "reference.cu"
plan = """
scratch partial : f32[cdiv(N, 1024) * M];
row_partial<<<dim3(cdiv(N, 1024), M), 256>>>(X, partial, M, N, alpha);
row_finish<256><<<M, 256, 0>>>(partial, Y, M, cdiv(N, 1024));
"""

[tolerance]
atol = 1e-5
rtol = 1e-5
rel_l2 = 1e-4

[cost]
flops = "M * N"
bytes = "4 * M * N + 4 * M"

[[baseline]]
name = "cub"
kind = "cub_segmented_reduce"
params = { in = "X", out = "Y" }
)toml";

// A module-only problem (reference.py in KernelBench's form, no reference.cu): y = relu(x W^T + b).
// Tests locate error positions by searching this text, not by fixed line numbers.
inline constexpr std::string_view kModuleSpec = R"toml(name = "level2/linear_relu"
level = 2
title = "Linear + ReLU"
description = "y = relu(x W^T + b)"
sizes = ["batch_size", "in_features", "out_features"]
test_shapes = [ { batch_size = 3, in_features = 5, out_features = 7 } ]
bench_shapes = [ { batch_size = 128, in_features = 1024, out_features = 512 } ]

[[tensor]]
name = "x"
dtype = "f32"
shape = ["batch_size", "in_features"]
role = "in"
init = { dist = "normal", mean = 0.0, std = 1.0 }

[[tensor]]
name = "linear_weight"
dtype = "f32"
shape = ["out_features", "in_features"]
role = "in"
init = { dist = "uniform", low = -0.03, high = 0.03 }

[[tensor]]
name = "linear_bias"
dtype = "f32"
shape = ["out_features"]
role = "in"
init = { dist = "uniform", low = -0.03, high = 0.03 }

[[tensor]]
name = "out"
dtype = "f32"
shape = ["batch_size", "out_features"]
role = "out"

[reference]
module = "reference.py"

[module]
globals = ["batch_size", "in_features", "out_features"]
forward = ["x"]
outputs = ["out"]
bench_precision = "f32"

[module.parameters]
"linear.weight" = "linear_weight"
"linear.bias" = "linear_bias"

[tolerance]
atol = 1e-4
rtol = 1e-4
rel_l2 = 1e-5

[cost]
flops = "2 * batch_size * in_features * out_features"
bytes = "4 * (batch_size * in_features + in_features * out_features + batch_size * out_features)"
)toml";

// Replaces the first occurrence of `from` (which must exist) in `text`.
inline void Replace(std::string& text, std::string_view from, std::string_view to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "text has no '" << from << "'";
  if (at != std::string::npos) text.replace(at, from.size(), to);
}

// kValidSpec with the first occurrence of `from` replaced by `to` (which must exist).
inline std::string SpecWith(std::string_view from, std::string_view to) {
  std::string text(kValidSpec);
  Replace(text, from, to);
  return text;
}

}  // namespace kjudge::testing
