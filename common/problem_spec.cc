#include "common/problem_spec.h"

#include "absl/strings/str_cat.h"
#include "common/lexer.h"

namespace kjudge {

std::string Shape::Label() const {
  std::string label;
  auto append = [&label](const std::string& size, int64_t value) {
    absl::StrAppend(&label, label.empty() ? "" : ",", size, "=", value);
  };
  if (order.empty()) {
    for (const auto& [size, value] : sizes) append(size, value);
    if (input_scale != 1.0) absl::StrAppend(&label, ",scale=", input_scale);
    return label;
  }
  for (const std::string& size : order) {
    const auto it = sizes.find(size);
    if (it != sizes.end()) append(size, it->second);
  }
  if (input_scale != 1.0) absl::StrAppend(&label, ",scale=", input_scale);
  return label;
}

std::string_view TransformName(InitSpec::Transform transform) {
  switch (transform) {
    case InitSpec::Transform::kNone: return "";
    case InitSpec::Transform::kSoftmax: return "softmax";
    case InitSpec::Transform::kTril: return "tril";
    case InitSpec::Transform::kTriu: return "triu";
    case InitSpec::Transform::kSymmetric: return "symmetric";
    case InitSpec::Transform::kSign: return "sign";
  }
  return "";
}

int TransformMinRank(InitSpec::Transform transform) {
  switch (transform) {
    case InitSpec::Transform::kNone:
    case InitSpec::Transform::kSign: return 0;
    case InitSpec::Transform::kSoftmax: return 1;
    case InitSpec::Transform::kTril:
    case InitSpec::Transform::kTriu:
    case InitSpec::Transform::kSymmetric: return 2;
  }
  return 0;
}

std::vector<InputRegime> ProblemSpec::DrawableRegimes() const {
  std::vector<InputRegime> all = {InputRegime::kDeclared};
  all.insert(all.end(), regimes.begin(), regimes.end());
  return all;
}

InitSpec ScaledInit(const InitSpec& init, DType dtype, double input_scale) {
  if (!DTypeIsFloat(dtype) || !init.scalable || input_scale == 1.0) return init;
  InitSpec scaled = init;
  scaled.a *= input_scale;
  scaled.b *= input_scale;
  return scaled;
}

Bindings ProblemSpec::BindingsFor(const Shape& shape) const {
  Bindings bindings;
  for (const auto& [size, value] : shape.sizes) bindings[size] = Value::Int(value);
  for (const ScalarSpec& scalar : scalars) bindings[scalar.name] = scalar.value;
  return bindings;
}

absl::StatusOr<int64_t> ProblemSpec::ElementCount(const TensorSpec& tensor,
                                                  const Shape& shape) const {
  const Bindings bindings = BindingsFor(shape);
  int64_t count = 1;
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    absl::StatusOr<int64_t> dim = tensor.shape[i].EvaluateInt(bindings);
    if (!dim.ok()) return dim.status();
    if (*dim < 0) {
      return MakePosError(tensor.shape[i].pos(),
                          absl::StrCat("negative size: tensor '", tensor.name, "' dimension ", i,
                                       " ('", tensor.shape[i].ToString(), "') is ", *dim, " at ",
                                       shape.Label(), "; expected a non-negative size"));
    }
    if (__builtin_mul_overflow(count, *dim, &count)) {
      return MakePosError(tensor.shape[i].pos(),
                          absl::StrCat("integer overflow: tensor '", tensor.name,
                                       "' has more than 2^63 elements at ", shape.Label()));
    }
  }
  return count;
}

const TensorSpec* ProblemSpec::FindTensor(std::string_view tensor_name) const {
  for (const TensorSpec& tensor : tensors) {
    if (tensor.name == tensor_name) return &tensor;
  }
  return nullptr;
}

}  // namespace kjudge
