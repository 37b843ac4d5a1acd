// ParseProblemSpec (declared in problem_spec.h): problem.toml -> ProblemSpec, with validation.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/absl_compat.h"
#include "common/byte_size.h"
#include "common/problem_spec.h"
#include "common/toml_reader.h"
#include "common/status_macros.h"

namespace kjudge {
namespace {

bool IsCIdentifier(std::string_view s) {
  if (s.empty() || !(absl::ascii_isalpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(absl::ascii_isalnum(c) || c == '_')) return false;
  }
  return true;
}

class SpecParser {
 public:
  explicit SpecParser(const TomlReader& reader) : r_(reader) {}

  absl::StatusOr<ProblemSpec> Parse() {
    const toml::table& root = r_.root();
    absl::Status st = r_.CheckKeys(
        root, "",
        {"name", "level", "title", "description", "sizes", "test_shapes", "bench_shapes",
         "example", "regimes", "tensor", "scalar", "reference", "module", "tolerance", "cost",
         "baseline"});
    if (st.ok()) st = ParseHeader(root);
    if (st.ok()) st = ParseRegimes(root);
    if (st.ok()) st = ParseSizes(root);
    if (st.ok()) st = ParseShapes(root, "test_shapes", spec_.test_shapes, /*allow_scale=*/true);
    if (st.ok()) st = ParseShapes(root, "bench_shapes", spec_.bench_shapes, /*allow_scale=*/false);
    if (st.ok()) st = ParseScalars(root);
    if (st.ok()) st = ParseTensors(root);
    if (st.ok()) st = ParseReference(root);
    if (st.ok()) st = ParseModule(root);
    if (st.ok()) st = ParseTolerance(root);
    if (st.ok()) st = ParseCost(root);
    if (st.ok()) st = ParseBaselines(root);
    if (st.ok()) st = CheckShapesEvaluate();
    if (!st.ok()) return st;
    return std::move(spec_);
  }

 private:
  absl::Status ParseHeader(const toml::table& root) {
    absl::StatusOr<std::string> name = NonEmptyString(root, "", "name");
    if (!name.ok()) return name.status();
    spec_.name = *name;
    absl::StatusOr<int64_t> level = r_.GetInt(root, "", "level");
    if (!level.ok()) return level.status();
    if (*level < 1 || *level > 9) {
      return r_.Error(*root.get("level"), "level",
                      absl::StrCat("level ", *level, " is out of range; expected 1 to 9"));
    }
    spec_.level = static_cast<int>(*level);
    absl::StatusOr<std::string> title = NonEmptyString(root, "", "title");
    if (!title.ok()) return title.status();
    spec_.title = *title;
    absl::StatusOr<std::string> description = NonEmptyString(root, "", "description");
    if (!description.ok()) return description.status();
    spec_.description = *description;
    if (root.contains("example")) {
      absl::StatusOr<std::string> example = NonEmptyString(root, "", "example");
      if (!example.ok()) return example.status();
      spec_.example_file = *example;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> NonEmptyString(const toml::table& t, absl::string_view path,
                                             std::string_view key) const {
    absl::StatusOr<std::string> s = r_.GetString(t, path, key);
    if (s.ok() && absl::StripAsciiWhitespace(*s).empty()) {
      return r_.Error(*t.get(key), TomlReader::Join(path, key), "expected a non-empty string");
    }
    return s;
  }

  // Registers a new name (size, scalar or tensor), rejecting duplicates and non-identifiers.
  absl::Status DeclareName(const std::string& name, const toml::node& node,
                           const std::string& path) {
    if (!IsCIdentifier(name)) {
      return r_.Error(node, path,
                      absl::StrCat("'", name, "' is not a valid name; expected a C identifier"));
    }
    const auto [it, inserted] = declared_.emplace(name, path);
    if (inserted) return absl::OkStatus();
    return r_.Error(node, path, absl::StrCat("name '", name, "' is already used by ", it->second,
                                             "; expected a unique name"));
  }

  // regimes: optional array of distinct listable regime names ("declared" is implicit).
  absl::Status ParseRegimes(const toml::table& root) {
    if (!root.contains("regimes")) return absl::OkStatus();
    absl::StatusOr<const toml::array*> regimes = r_.GetArray(root, "", "regimes");
    if (!regimes.ok()) return regimes.status();
    for (size_t i = 0; i < (*regimes)->size(); ++i) {
      const toml::node& node = *(*regimes)->get(i);
      const std::string path = TomlReader::Index("regimes", i);
      absl::StatusOr<InputRegime> regime = ParseRegime(node, path);
      if (!regime.ok()) return regime.status();
      if (std::find(spec_.regimes.begin(), spec_.regimes.end(), *regime) != spec_.regimes.end()) {
        return r_.Error(node, path,
                        absl::StrCat("regime '", ToAbsl(RegimeName(*regime)),
                                     "' is listed twice; expected each regime at most once"));
      }
      spec_.regimes.push_back(*regime);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<InputRegime> ParseRegime(const toml::node& node, const std::string& path) const {
    const auto* s = node.as_string();
    if (s == nullptr) {
      return r_.Error(node, path, absl::StrCat("expected a regime name (a string), found ",
                                               TomlReader::TypeName(node)));
    }
    const std::optional<InputRegime> regime = ParseRegimeName(s->get());
    if (regime == InputRegime::kDeclared) {
      return r_.Error(node, path,
                      absl::StrCat("'declared' is always part of a problem's regimes and is not "
                                   "listed; expected one of ",
                                   ToAbsl(ListableRegimeNames())));
    }
    if (!regime.has_value()) {
      return r_.Error(node, path,
                      absl::StrCat("unknown regime '", s->get(), "'; expected one of ",
                                   ToAbsl(ListableRegimeNames())));
    }
    return *regime;
  }

  static constexpr std::string_view kInputScaleKey = "input_scale";

  absl::Status ParseSizes(const toml::table& root) {
    absl::StatusOr<const toml::array*> sizes = r_.GetArray(root, "", "sizes");
    if (!sizes.ok()) return sizes.status();
    for (size_t i = 0; i < (*sizes)->size(); ++i) {
      const toml::node& node = *(*sizes)->get(i);
      const std::string path = TomlReader::Index("sizes", i);
      const auto* s = node.as_string();
      if (s == nullptr) {
        return r_.Error(node, path, absl::StrCat("expected a size name (a string), found ",
                                                 TomlReader::TypeName(node)));
      }
      if (s->get() == kInputScaleKey) {
        return r_.Error(node, path, "'input_scale' is reserved (a test shape's input scale); "
                                    "expected another size name");
      }
      KJ_RETURN_IF_ERROR(DeclareName(s->get(), node, path));
      spec_.sizes.push_back(s->get());
    }
    return absl::OkStatus();
  }

  absl::Status ParseShapes(const toml::table& root, std::string_view key,
                           std::vector<Shape>& out, bool allow_scale) {
    absl::StatusOr<const toml::array*> shapes = r_.GetArray(root, "", key);
    if (!shapes.ok()) return shapes.status();
    if ((*shapes)->empty()) {
      return r_.Error(*root.get(key), ToAbsl(key), "expected at least one shape, found an empty array");
    }
    for (size_t i = 0; i < (*shapes)->size(); ++i) {
      absl::StatusOr<Shape> shape =
          ParseShape(*(*shapes)->get(i), TomlReader::Index(ToAbsl(key), i), allow_scale);
      if (!shape.ok()) return shape.status();
      out.push_back(*std::move(shape));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Shape> ParseShape(const toml::node& node, const std::string& path,
                                   bool allow_scale) {
    absl::StatusOr<const toml::table*> table = r_.ElementTable(node, path);
    if (!table.ok()) return table.status();
    Shape shape;
    shape.order = spec_.sizes;
    for (const auto& [key, value] : **table) {
      const std::string key_path = TomlReader::Join(path, key.str());
      if (key.str() == kInputScaleKey) {
        if (!allow_scale) {
          return r_.Error(value, key_path,
                          "input_scale is for test shapes only (stress inputs for accuracy); "
                          "bench shapes time the problem's own input distribution");
        }
        absl::StatusOr<double> scale = r_.GetNumber(**table, path, kInputScaleKey);
        if (!scale.ok()) return scale.status();
        if (!(*scale > 0.0) || !std::isfinite(*scale)) {
          return r_.Error(value, key_path,
                          absl::StrCat("expected a finite input scale > 0, found ", *scale));
        }
        shape.input_scale = *scale;
        continue;
      }
      if (std::find(spec_.sizes.begin(), spec_.sizes.end(), key.str()) == spec_.sizes.end()) {
        const SourcePos key_pos{static_cast<int>(key.source().begin.line),
                                static_cast<int>(key.source().begin.column)};
        return r_.Error(key_pos, key_path,
                        absl::StrCat("unknown size '", ToAbsl(key.str()), "'; expected one of: ",
                                     absl::StrJoin(spec_.sizes, ", ")));
      }
      const auto* v = value.as_integer();
      if (v == nullptr || v->get() < 1) {
        return r_.Error(value, key_path,
                        absl::StrCat("expected an integer >= 1, found ",
                                     v == nullptr ? TomlReader::TypeName(value)
                                                  : absl::StrCat(v->get())));
      }
      shape.sizes[std::string(key.str())] = v->get();
    }
    for (const std::string& size : spec_.sizes) {
      if (!shape.sizes.contains(size)) {
        return r_.Error(node, path,
                        absl::StrCat("missing size '", size, "'; every shape must give every size (",
                                     absl::StrJoin(spec_.sizes, ", "), ")"));
      }
    }
    return shape;
  }

  absl::Status ParseScalars(const toml::table& root) {
    if (!root.contains("scalar")) return absl::OkStatus();
    absl::StatusOr<const toml::array*> scalars = r_.GetArray(root, "", "scalar");
    if (!scalars.ok()) return scalars.status();
    for (size_t i = 0; i < (*scalars)->size(); ++i) {
      const std::string path = TomlReader::Index("scalar", i);
      absl::StatusOr<const toml::table*> t = r_.ElementTable(*(*scalars)->get(i), path);
      if (!t.ok()) return t.status();
      absl::StatusOr<ScalarSpec> scalar = ParseScalar(**t, path);
      if (!scalar.ok()) return scalar.status();
      spec_.scalars.push_back(*std::move(scalar));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ScalarSpec> ParseScalar(const toml::table& t, const std::string& path) {
    KJ_RETURN_IF_ERROR(r_.CheckKeys(t, path, {"name", "dtype", "value"}));
    ScalarSpec scalar;
    absl::StatusOr<std::string> name = r_.GetString(t, path, "name");
    if (!name.ok()) return name.status();
    if (absl::Status st = DeclareName(*name, *t.get("name"), TomlReader::Join(path, "name"));
        !st.ok()) {
      return st;
    }
    scalar.name = *name;
    absl::StatusOr<DType> dtype = GetDType(t, path);
    if (!dtype.ok()) return dtype.status();
    scalar.dtype = *dtype;
    if (DTypeIsFloat(scalar.dtype)) {
      absl::StatusOr<double> value = r_.GetNumber(t, path, "value");
      if (!value.ok()) return value.status();
      scalar.value = Value::Float(*value);
    } else {
      absl::StatusOr<int64_t> value = r_.GetInt(t, path, "value");
      if (!value.ok()) return value.status();
      scalar.value = Value::Int(*value);
    }
    return scalar;
  }

  absl::StatusOr<DType> GetDType(const toml::table& t, const std::string& path) const {
    absl::StatusOr<std::string> name = r_.GetString(t, path, "dtype");
    if (!name.ok()) return name.status();
    absl::StatusOr<DType> dtype = ParseDType(*name);
    if (!dtype.ok()) {
      return r_.Error(*t.get("dtype"), TomlReader::Join(path, "dtype"), dtype.status().message());
    }
    return dtype;
  }

  absl::Status ParseTensors(const toml::table& root) {
    absl::StatusOr<const toml::array*> tensors = r_.GetArray(root, "", "tensor");
    if (!tensors.ok()) return tensors.status();
    if ((*tensors)->empty()) {
      return r_.Error(*root.get("tensor"), "tensor", "expected at least one [[tensor]]");
    }
    for (size_t i = 0; i < (*tensors)->size(); ++i) {
      const std::string path = TomlReader::Index("tensor", i);
      absl::StatusOr<const toml::table*> t = r_.ElementTable(*(*tensors)->get(i), path);
      if (!t.ok()) return t.status();
      absl::StatusOr<TensorSpec> tensor = ParseTensor(**t, path);
      if (!tensor.ok()) return tensor.status();
      spec_.tensors.push_back(*std::move(tensor));
    }
    bool has_output = false;
    for (const TensorSpec& t : spec_.tensors) has_output = has_output || t.role == TensorRole::kOut;
    if (!has_output) {
      return r_.Error(*root.get("tensor"), "tensor",
                      "no tensor has role = \"out\"; expected at least one output");
    }
    return absl::OkStatus();
  }

  absl::StatusOr<TensorSpec> ParseTensor(const toml::table& t, const std::string& path) {
    if (absl::Status st = r_.CheckKeys(t, path, {"name", "dtype", "shape", "role", "init"});
        !st.ok()) {
      return st;
    }
    TensorSpec tensor;
    absl::StatusOr<std::string> name = r_.GetString(t, path, "name");
    if (!name.ok()) return name.status();
    if (absl::Status st = DeclareName(*name, *t.get("name"), TomlReader::Join(path, "name"));
        !st.ok()) {
      return st;
    }
    tensor.name = *name;
    absl::StatusOr<DType> dtype = GetDType(t, path);
    if (!dtype.ok()) return dtype.status();
    tensor.dtype = *dtype;
    absl::StatusOr<const toml::array*> shape = r_.GetArray(t, path, "shape");
    if (!shape.ok()) return shape.status();
    for (size_t i = 0; i < (*shape)->size(); ++i) {
      absl::StatusOr<Expr> dim =
          SizeExpr(*(*shape)->get(i), TomlReader::Index(TomlReader::Join(path, "shape"), i));
      if (!dim.ok()) return dim.status();
      tensor.shape.push_back(*std::move(dim));
    }
    absl::StatusOr<std::string> role = r_.GetString(t, path, "role");
    if (!role.ok()) return role.status();
    if (*role != "in" && *role != "out") {
      return r_.Error(*t.get("role"), TomlReader::Join(path, "role"),
                      absl::StrCat("unknown role '", *role, "'; expected \"in\" or \"out\""));
    }
    tensor.role = *role == "in" ? TensorRole::kIn : TensorRole::kOut;
    absl::Status st = ParseInit(t, path, tensor);
    if (!st.ok()) return st;
    return tensor;
  }

  absl::Status ParseInit(const toml::table& t, const std::string& path, TensorSpec& tensor) {
    const std::string init_path = TomlReader::Join(path, "init");
    if (tensor.role == TensorRole::kOut) {
      if (!t.contains("init")) return absl::OkStatus();
      return r_.Error(*t.get("init"), init_path,
                      "an output tensor has no init; expected init only on role = \"in\"");
    }
    absl::StatusOr<const toml::table*> init = r_.GetTable(t, path, "init");
    if (!init.ok()) return init.status();
    absl::StatusOr<std::string> dist = r_.GetString(**init, init_path, "dist");
    if (!dist.ok()) return dist.status();
    const bool normal = *dist == "normal";
    if (!normal && *dist != "uniform") {
      return r_.Error(*(*init)->get("dist"), TomlReader::Join(init_path, "dist"),
                      absl::StrCat("unknown distribution '", *dist,
                                   "'; expected \"normal\" or \"uniform\""));
    }
    const std::string_view a_key = normal ? "mean" : "low";
    const std::string_view b_key = normal ? "std" : "high";
    if (absl::Status st =
            r_.CheckKeys(**init, init_path, {"dist", a_key, b_key, "scalable", "transform"});
        !st.ok()) {
      return st;
    }
    KJ_RETURN_IF_ERROR(ParseTransform(**init, init_path, tensor));
    if ((*init)->contains("scalable")) {
      absl::StatusOr<bool> scalable = r_.GetBool(**init, init_path, "scalable");
      if (!scalable.ok()) return scalable.status();
      tensor.init.scalable = *scalable;
    }
    absl::StatusOr<double> a = r_.GetNumber(**init, init_path, a_key);
    if (!a.ok()) return a.status();
    absl::StatusOr<double> b = r_.GetNumber(**init, init_path, b_key);
    if (!b.ok()) return b.status();
    if (normal ? *b <= 0 : *b <= *a) {
      return r_.Error(**init, init_path,
                      normal ? "expected std > 0" : "expected low < high");
    }
    tensor.init.dist = normal ? InitSpec::Dist::kNormal : InitSpec::Dist::kUniform;
    tensor.init.a = *a;
    tensor.init.b = *b;
    return absl::OkStatus();
  }

  // init.transform: a known name, on a float tensor of sufficient rank. Squareness (symmetric)
  // needs sizes, so CheckShape checks it at every shape (transform_node_ keeps the node).
  absl::Status ParseTransform(const toml::table& init, const std::string& init_path,
                              TensorSpec& tensor) {
    if (!init.contains("transform")) return absl::OkStatus();
    const std::string path = TomlReader::Join(init_path, "transform");
    absl::StatusOr<std::string> name = r_.GetString(init, init_path, "transform");
    if (!name.ok()) return name.status();
    const toml::node& node = *init.get("transform");
    using T = InitSpec::Transform;
    T transform = T::kNone;
    for (T t : {T::kSoftmax, T::kTril, T::kTriu, T::kSymmetric, T::kSign}) {
      if (*name == TransformName(t)) transform = t;
    }
    if (transform == T::kNone) {
      return r_.Error(node, path,
                      absl::StrCat("unknown transform '", *name,
                                   "'; expected \"softmax\", \"tril\", \"triu\", "
                                   "\"symmetric\" or \"sign\""));
    }
    if (!DTypeIsFloat(tensor.dtype)) {
      return r_.Error(node, path,
                      absl::StrCat("transform '", *name, "' needs a float tensor; '",
                                   tensor.name, "' is ", std::string(DTypeName(tensor.dtype)),
                                   " (remove the transform or make the tensor a float dtype)"));
    }
    const int rank = static_cast<int>(tensor.shape.size());
    if (rank < TransformMinRank(transform)) {
      return r_.Error(node, path,
                      absl::StrCat("transform '", *name, "' needs a tensor of rank >= ",
                                   TransformMinRank(transform), "; '", tensor.name,
                                   "' has rank ", rank));
    }
    tensor.init.transform = transform;
    transform_node_[tensor.name] = &node;
    return absl::OkStatus();
  }

  // A "symmetric" input's last two dimensions are equal at `shape` (checked per shape: the
  // expressions may differ yet agree, "N" and "M" with M = N).
  absl::Status CheckSquare(const TensorSpec& tensor, size_t index, const Shape& shape,
                           const Bindings& bindings) const {
    if (tensor.init.transform != InitSpec::Transform::kSymmetric) return absl::OkStatus();
    const size_t rank = tensor.shape.size();
    absl::StatusOr<int64_t> rows = tensor.shape[rank - 2].EvaluateInt(bindings);
    absl::StatusOr<int64_t> cols = tensor.shape[rank - 1].EvaluateInt(bindings);
    if (!rows.ok()) return rows.status();
    if (!cols.ok()) return cols.status();
    if (*rows == *cols) return absl::OkStatus();
    return r_.Error(*transform_node_.at(tensor.name),
                    absl::StrCat(TomlReader::Index("tensor", index), ".init.transform"),
                    absl::StrCat("transform 'symmetric' needs square matrices; '", tensor.name,
                                 "' is ", *rows, " x ", *cols, " in its last two dimensions at ",
                                 shape.Label(), " (use equal sizes there, or drop the transform)"));
  }

  // An expression that may use only the declared sizes.
  absl::StatusOr<Expr> SizeExpr(const toml::node& node, const std::string& path) const {
    absl::StatusOr<Expr> expr = r_.ToExpr(node, path);
    if (!expr.ok()) return expr;
    for (const NameUse& use : expr->NameUses()) {
      if (std::find(spec_.sizes.begin(), spec_.sizes.end(), use.name) == spec_.sizes.end()) {
        return r_.Error(use.pos, path,
                        absl::StrCat("unknown size '", use.name, "' in '", expr->ToString(),
                                     "'; expected one of the sizes: ",
                                     absl::StrJoin(spec_.sizes, ", ")));
      }
    }
    return expr;
  }

  // [reference]: a CUDA reference (source + plan), a PyTorch module, or both.
  absl::Status ParseReference(const toml::table& root) {
    absl::StatusOr<const toml::table*> ref = r_.GetTable(root, "", "reference");
    if (!ref.ok()) return ref.status();
    if (absl::Status st = r_.CheckKeys(**ref, "reference", {"source", "plan", "module"}); !st.ok()) {
      return st;
    }
    const bool has_source = (*ref)->contains("source");
    const bool has_plan = (*ref)->contains("plan");
    const bool has_module = (*ref)->contains("module");
    if (!has_source && !has_plan && !has_module) {
      return r_.Error(**ref, "reference",
                      "no reference; expected source = \"reference.cu\" with its plan, or "
                      "module = \"reference.py\" (a PyTorch module), or both");
    }
    if (has_module) {
      absl::Status st = ParseModuleFile(**ref);
      if (!st.ok()) return st;
    }
    if (!has_source && !has_plan) return absl::OkStatus();
    if (has_source != has_plan) {
      // Require() names the missing one with the table's position.
      absl::StatusOr<const toml::node*> missing = r_.Require(**ref, "reference", has_source ? "plan" : "source");
      return absl::InvalidArgumentError(absl::StrCat(
          missing.status().message(), "; a CUDA reference needs both source and its plan"));
    }
    absl::StatusOr<std::string> source = NonEmptyString(**ref, "reference", "source");
    if (!source.ok()) return source.status();
    spec_.reference_source_file = *source;
    absl::StatusOr<std::string> plan_text = r_.GetString(**ref, "reference", "plan");
    if (!plan_text.ok()) return plan_text.status();
    const SourcePos start = r_.StringContentStart(*(*ref)->get("plan"));
    absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan(*plan_text, start);
    if (!plan.ok()) return r_.Rebase(plan.status(), "reference.plan");
    if (absl::Status st = ValidatePlanAgainstSpec(*plan, spec_); !st.ok()) {
      return r_.Rebase(st, "reference.plan");
    }
    spec_.reference_plan = *std::move(plan);
    return absl::OkStatus();
  }

  // reference.module: a plain file name in the problem directory (the oracle receives the
  // text under this name; no path, so nothing outside the directory can be named).
  absl::Status ParseModuleFile(const toml::table& ref) {
    absl::StatusOr<std::string> file = NonEmptyString(ref, "reference", "module");
    if (!file.ok()) return file.status();
    const bool safe = file->find('/') == std::string::npos && file->find('\\') == std::string::npos &&
                      file->size() > 3 && file->ends_with(".py") && !file->starts_with(".");
    if (!safe) {
      return r_.Error(*ref.get("module"), "reference.module",
                      absl::StrCat("'", *file, "' is not a plain Python file name; expected a "
                                   "file in the problem directory such as \"reference.py\" "
                                   "(no '/', not starting with '.', ending in .py)"));
    }
    spec_.module.emplace();
    spec_.module->module_file = *file;
    return absl::OkStatus();
  }

  // [module]: how reference.py binds to the spec's sizes and tensors.
  absl::Status ParseModule(const toml::table& root) {
    const toml::node* node = root.get("module");
    if (node == nullptr) {
      if (!spec_.module.has_value()) return absl::OkStatus();
      const toml::table& ref = *root.get("reference")->as_table();
      return r_.Error(*ref.get("module"), "reference.module",
                      "a module reference needs a [module] table (forward, outputs, and "
                      "globals and parameters where the module has them); see "
                      "docs/pytorch-problems.md");
    }
    if (!spec_.module.has_value()) {
      return r_.Error(*node, "module",
                      "a [module] table without a module to bind; expected module = "
                      "\"reference.py\" in [reference]");
    }
    absl::StatusOr<const toml::table*> t = r_.GetTable(root, "", "module");
    if (!t.ok()) return t.status();
    if (absl::Status st = r_.CheckKeys(**t, "module", {"globals", "forward", "outputs", "precision",
                                                       "bench_precision", "parameters"});
        !st.ok()) {
      return st;
    }
    ModuleBinding& m = *spec_.module;
    absl::Status st = ParseModuleGlobals(**t, m);
    if (st.ok()) st = ParseNameList(**t, "forward", TensorRole::kIn, m.forward);
    if (st.ok()) st = ParseModuleParameters(**t, m);
    if (st.ok()) st = ParseNameList(**t, "outputs", TensorRole::kOut, m.outputs);
    if (st.ok()) st = ParsePrecision(**t, "precision", m.precision);
    if (st.ok()) st = ParsePrecision(**t, "bench_precision", m.bench_precision);
    if (st.ok()) st = CheckEveryTensorBound(**t);
    return st;
  }

  absl::Status ParseModuleGlobals(const toml::table& t, ModuleBinding& m) {
    if (!t.contains("globals")) return absl::OkStatus();
    absl::StatusOr<const toml::array*> globals = r_.GetArray(t, "module", "globals");
    if (!globals.ok()) return globals.status();
    for (size_t i = 0; i < (*globals)->size(); ++i) {
      const toml::node& node = *(*globals)->get(i);
      const std::string path = TomlReader::Index("module.globals", i);
      const auto* s = node.as_string();
      if (s == nullptr) {
        return r_.Error(node, path, absl::StrCat("expected a size name (a string), found ",
                                                 TomlReader::TypeName(node)));
      }
      if (std::find(spec_.sizes.begin(), spec_.sizes.end(), s->get()) == spec_.sizes.end()) {
        return r_.Error(node, path,
                        absl::StrCat("'", s->get(), "' is not a size of this problem; expected "
                                     "one of: ", absl::StrJoin(spec_.sizes, ", ")));
      }
      if (std::find(m.globals.begin(), m.globals.end(), s->get()) != m.globals.end()) {
        return r_.Error(node, path, absl::StrCat("size '", s->get(), "' is listed twice"));
      }
      m.globals.push_back(s->get());
    }
    return absl::OkStatus();
  }

  // A tensor name of the given role, counted in bound_ (which CheckEveryTensorBound reads).
  absl::Status BindTensor(const toml::node& node, const std::string& path, TensorRole role,
                          std::string_view what, std::string& out) {
    const auto* s = node.as_string();
    if (s == nullptr) {
      return r_.Error(node, path, absl::StrCat("expected a tensor name (a string), found ",
                                               TomlReader::TypeName(node), ToAbsl(what)));
    }
    const TensorSpec* tensor = spec_.FindTensor(s->get());
    const std::string role_name = role == TensorRole::kIn ? "in" : "out";
    if (tensor == nullptr || tensor->role != role) {
      std::vector<std::string> names;
      for (const TensorSpec& t : spec_.tensors) {
        if (t.role == role) names.push_back(t.name);
      }
      const std::string what_is_wrong =
          tensor == nullptr ? absl::StrCat("unknown tensor '", s->get(), "'")
                            : absl::StrCat("tensor '", s->get(), "' is not role = \"", role_name, "\"");
      return r_.Error(node, path,
                      absl::StrCat(what_is_wrong, "; expected one of the \"", role_name,
                                   "\" tensors: ", absl::StrJoin(names, ", ")));
    }
    const auto [it, first] = bound_.emplace(s->get(), path);
    if (!first) {
      return r_.Error(node, path, absl::StrCat("tensor '", s->get(), "' is already bound by ",
                                               it->second, "; expected each tensor exactly once"));
    }
    out = s->get();
    return absl::OkStatus();
  }

  absl::Status ParseNameList(const toml::table& t, std::string_view key, TensorRole role,
                             std::vector<std::string>& out) {
    const std::string list_path = TomlReader::Join("module", key);
    absl::StatusOr<const toml::array*> list = r_.GetArray(t, "module", key);
    if (!list.ok()) return list.status();
    for (size_t i = 0; i < (*list)->size(); ++i) {
      std::string name;
      absl::Status st = BindTensor(*(*list)->get(i), TomlReader::Index(list_path, i), role, "", name);
      if (!st.ok()) return st;
      out.push_back(std::move(name));
    }
    return absl::OkStatus();
  }

  absl::Status ParseModuleParameters(const toml::table& t, ModuleBinding& m) {
    if (!t.contains("parameters")) return absl::OkStatus();
    absl::StatusOr<const toml::table*> params = r_.GetTable(t, "module", "parameters");
    if (!params.ok()) return params.status();
    // toml++ iterates keys sorted; the binding keeps the file's order (state_dict order, as
    // written), so sort the entries by position.
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (const auto& [key, value] : **params) entries.emplace_back(&key, &value);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      const auto& pa = a.first->source().begin;
      const auto& pb = b.first->source().begin;
      return std::pair(pa.line, pa.column) < std::pair(pb.line, pb.column);
    });
    for (const auto& [key_ptr, value_ptr] : entries) {
      const toml::key& key = *key_ptr;
      const toml::node& value = *value_ptr;
      // Quoted, so "linear.weight" is one key; unquoted, linear.weight is a nested table.
      const std::string path = absl::StrCat("module.parameters.\"", ToAbsl(key.str()), "\"");
      std::string tensor;
      absl::Status st = BindTensor(value, path, TensorRole::kIn,
                                   "; quote state_dict keys with dots (\"linear.weight\" = \"W\")",
                                   tensor);
      if (!st.ok()) return st;
      m.parameters.emplace_back(std::string(key.str()), std::move(tensor));
    }
    return absl::OkStatus();
  }

  absl::Status ParsePrecision(const toml::table& t, std::string_view key, std::string& out) {
    if (!t.contains(key)) return absl::OkStatus();
    absl::StatusOr<std::string> v = r_.GetString(t, "module", key);
    if (!v.ok()) return v.status();
    if (*v != "f64" && *v != "f32") {
      return r_.Error(*t.get(key), TomlReader::Join("module", key),
                      absl::StrCat("unknown precision '", *v, "'; expected \"f64\" or \"f32\""));
    }
    out = *v;
    return absl::OkStatus();
  }

  // Every tensor of the spec is bound: inputs by forward or parameters, outputs by outputs.
  absl::Status CheckEveryTensorBound(const toml::table& t) const {
    for (const TensorSpec& tensor : spec_.tensors) {
      if (bound_.contains(tensor.name)) continue;
      const bool in = tensor.role == TensorRole::kIn;
      return r_.Error(t, "module",
                      absl::StrCat(in ? "input" : "output", " tensor '", tensor.name,
                                   "' is not bound; expected it in ",
                                   in ? "module.forward or as a value of [module.parameters]"
                                      : "module.outputs"));
    }
    return absl::OkStatus();
  }

  absl::Status ParseTolerance(const toml::table& root) {
    absl::StatusOr<const toml::table*> tol = r_.GetTable(root, "", "tolerance");
    if (!tol.ok()) return tol.status();
    if (absl::Status st = r_.CheckKeys(**tol, "tolerance", {"atol", "rtol", "rel_l2"}); !st.ok()) {
      return st;
    }
    for (auto [key, out] : {std::pair{"atol", &spec_.tolerance.atol},
                            std::pair{"rtol", &spec_.tolerance.rtol},
                            std::pair{"rel_l2", &spec_.tolerance.rel_l2}}) {
      absl::StatusOr<double> v = r_.GetNumber(**tol, "tolerance", key);
      if (!v.ok()) return v.status();
      if (!(*v >= 0)) {
        return r_.Error(*(*tol)->get(key), TomlReader::Join("tolerance", key),
                        absl::StrCat("expected a tolerance >= 0, found ", *v));
      }
      *out = *v;
    }
    return absl::OkStatus();
  }

  absl::Status ParseCost(const toml::table& root) {
    absl::StatusOr<const toml::table*> cost = r_.GetTable(root, "", "cost");
    if (!cost.ok()) return cost.status();
    if (absl::Status st =
            r_.CheckKeys(**cost, "cost", {"flops", "bytes", "flops_lower_bound", "min_flops"});
        !st.ok()) {
      return st;
    }
    if ((*cost)->contains("flops_lower_bound")) {
      absl::StatusOr<bool> bound = r_.GetBool(**cost, "cost", "flops_lower_bound");
      if (!bound.ok()) return bound.status();
      spec_.cost.flops_lower_bound = *bound;
    }
    for (auto [key, out] : {std::pair{"flops", &spec_.cost.flops},
                            std::pair{"bytes", &spec_.cost.bytes}}) {
      absl::StatusOr<const toml::node*> node = r_.Require(**cost, "cost", key);
      if (!node.ok()) return node.status();
      absl::StatusOr<Expr> expr = SizeExpr(**node, TomlReader::Join("cost", key));
      if (!expr.ok()) return expr.status();
      *out = *std::move(expr);
    }
    if ((*cost)->contains("min_flops")) {
      if (spec_.cost.flops_lower_bound) {
        return r_.Error(*(*cost)->get("min_flops"), "cost.min_flops",
                        "give either min_flops or flops_lower_bound = true (which means "
                        "min_flops = flops), not both");
      }
      absl::StatusOr<Expr> expr = SizeExpr(*(*cost)->get("min_flops"), "cost.min_flops");
      if (!expr.ok()) return expr.status();
      spec_.cost.min_flops = *std::move(expr);
    }
    return absl::OkStatus();
  }

  absl::Status ParseBaselines(const toml::table& root) {
    if (!root.contains("baseline")) return absl::OkStatus();
    absl::StatusOr<const toml::array*> baselines = r_.GetArray(root, "", "baseline");
    if (!baselines.ok()) return baselines.status();
    std::set<std::string> names;
    for (size_t i = 0; i < (*baselines)->size(); ++i) {
      const std::string path = TomlReader::Index("baseline", i);
      absl::StatusOr<const toml::table*> t = r_.ElementTable(*(*baselines)->get(i), path);
      if (!t.ok()) return t.status();
      absl::StatusOr<LibraryBaselineSpec> b = ParseBaseline(**t, path);
      if (!b.ok()) return b.status();
      if (!names.insert(b->name).second) {
        return r_.Error(*(*t)->get("name"), TomlReader::Join(path, "name"),
                        absl::StrCat("baseline '", b->name, "' is listed twice"));
      }
      spec_.baselines.push_back(*std::move(b));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<LibraryBaselineSpec> ParseBaseline(const toml::table& t,
                                                    const std::string& path) const {
    KJ_RETURN_IF_ERROR(r_.CheckKeys(t, path, {"name", "kind", "params"}));
    LibraryBaselineSpec b;
    absl::StatusOr<std::string> name = NonEmptyString(t, path, "name");
    if (!name.ok()) return name.status();
    b.name = *name;
    absl::StatusOr<std::string> kind = NonEmptyString(t, path, "kind");
    if (!kind.ok()) return kind.status();
    b.kind = *kind;
    if (!t.contains("params")) return b;
    const std::string params_path = TomlReader::Join(path, "params");
    absl::StatusOr<const toml::table*> params = r_.GetTable(t, path, "params");
    if (!params.ok()) return params.status();
    for (const auto& [key, value] : **params) {
      absl::StatusOr<std::string> v = r_.GetString(**params, params_path, key.str());
      if (!v.ok()) return v.status();
      b.params[std::string(key.str())] = *v;
    }
    return b;
  }

  // Every tensor size and cost expression evaluates at every shape (no overflow, no division
  // by zero, no negative dimension), as does every value in the reference plan.
  absl::Status CheckShapesEvaluate() const {
    for (const auto* shapes : {&spec_.test_shapes, &spec_.bench_shapes}) {
      for (const Shape& shape : *shapes) {
        KJ_RETURN_IF_ERROR(CheckShape(shape));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckShape(const Shape& shape) const {
    const std::string at = absl::StrCat(" at ", shape.Label());
    int64_t total_bytes = 0;
    for (size_t i = 0; i < spec_.tensors.size(); ++i) {
      const TensorSpec& tensor = spec_.tensors[i];
      const std::string path = absl::StrCat(TomlReader::Index("tensor", i), ".shape", at);
      absl::StatusOr<int64_t> n = spec_.ElementCount(tensor, shape);
      if (!n.ok()) return r_.Rebase(n.status(), path);
      // The runner allocates count * dtype size bytes (plus guards) for every tensor, several
      // sets at once: each and their sum must stay far from wrapping around.
      absl::StatusOr<int64_t> bytes = CheckedBufferBytes(*n, tensor.dtype);
      if (bytes.ok()) bytes = CheckedAddBytes(total_bytes, *bytes);
      if (!bytes.ok()) {
        const SourcePos pos = tensor.shape.empty() ? SourcePos{0, 0} : tensor.shape.back().pos();
        return r_.Error(pos, path, bytes.status().message());
      }
      total_bytes = *bytes;
    }
    const Bindings bindings = spec_.BindingsFor(shape);
    for (size_t i = 0; i < spec_.tensors.size(); ++i) {
      KJ_RETURN_IF_ERROR(CheckSquare(spec_.tensors[i], i, shape, bindings));
    }
    for (auto [key, expr] : {std::pair{"cost.flops", &spec_.cost.flops},
                             std::pair{"cost.bytes", &spec_.cost.bytes}}) {
      absl::StatusOr<Value> v = expr->Evaluate(bindings);
      if (!v.ok()) return r_.Rebase(v.status(), absl::StrCat(key, at));
    }
    return CheckPlanEvaluates(bindings, at);
  }

  absl::Status CheckPlanEvaluates(const Bindings& bindings, const std::string& at) const {
    const std::string path = absl::StrCat("reference.plan", at);
    struct Bounded {
      const Expr* expr;
      int64_t min;  // an integer >= min; kAnyValue: any value, floats included
      absl::string_view what;
    };
    constexpr int64_t kAnyValue = std::numeric_limits<int64_t>::min();
    std::vector<Bounded> checks;
    for (const ScratchDecl& s : spec_.reference_plan.scratch) {
      checks.push_back({&s.count, 0, "a scratch element count"});
    }
    for (const Launch& l : spec_.reference_plan.launches) {
      for (const Dim3Expr* d : {&l.grid, &l.block}) {
        for (const Expr* e : {&d->x, &d->y, &d->z}) checks.push_back({e, 1, "a grid/block size"});
      }
      checks.push_back({&l.shared_bytes, 0, "a shared memory size"});
      for (const Expr& a : l.args) {
        if (!a.IsIdentifier()) checks.push_back({&a, kAnyValue, "an argument"});
      }
      if (absl::StatusOr<std::string> n = l.NameExpression(bindings); !n.ok()) {
        return r_.Rebase(n.status(), path);
      }
    }
    for (const Bounded& c : checks) {
      if (c.min == kAnyValue) {
        if (absl::StatusOr<Value> v = c.expr->Evaluate(bindings); !v.ok()) {
          return r_.Rebase(v.status(), path);
        }
        continue;
      }
      absl::StatusOr<int64_t> v = c.expr->EvaluateInt(bindings);
      if (!v.ok()) return r_.Rebase(v.status(), path);
      if (*v < c.min) {
        return r_.Error(c.expr->pos(), path,
                        absl::StrCat("'", c.expr->ToString(), "' is ", *v, "; expected ", c.what,
                                     " >= ", c.min));
      }
    }
    return absl::OkStatus();
  }

  const TomlReader& r_;
  ProblemSpec spec_;
  // tensor name -> its init.transform node (owned by r_, which outlives the parser)
  std::map<std::string, const toml::node*> transform_node_;
  std::map<std::string, std::string> declared_;  // name -> key path that declared it
  std::map<std::string, std::string> bound_;     // tensor -> [module] key path that binds it
};

}  // namespace

absl::StatusOr<ProblemSpec> ParseProblemSpec(std::string_view toml_text, std::string_view origin) {
  absl::StatusOr<TomlReader> reader = TomlReader::Parse(toml_text, origin);
  if (!reader.ok()) return reader.status();
  return SpecParser(*reader).Parse();
}

}  // namespace kjudge
