// libFuzzer target: the problem-spec parser (TOML + validation). Catalogs come from operators,
// not submitters, but a broken spec must still end in an error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/problem_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<kjudge::ProblemSpec> spec = kjudge::ParseProblemSpec(text, "fuzz/problem.toml");
  if (spec.ok()) {
    for (const kjudge::Shape& shape : spec->test_shapes) {
      for (const kjudge::TensorSpec& tensor : spec->tensors) (void)spec->ElementCount(tensor, shape);
    }
  }
  return 0;
}
