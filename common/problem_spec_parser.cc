// ParseProblemSpec (declared in problem_spec.h): problem.toml -> ProblemSpec, with validation.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/absl_compat.h"
#include "common/byte_size.h"
#include "common/problem_spec.h"
#include "common/toml_reader.h"

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
         "example", "tensor", "scalar", "reference", "tolerance", "cost", "baseline"});
    if (st.ok()) st = ParseHeader(root);
    if (st.ok()) st = ParseSizes(root);
    if (st.ok()) st = ParseShapes(root, "test_shapes", spec_.test_shapes, /*allow_scale=*/true);
    if (st.ok()) st = ParseShapes(root, "bench_shapes", spec_.bench_shapes, /*allow_scale=*/false);
    if (st.ok()) st = ParseScalars(root);
    if (st.ok()) st = ParseTensors(root);
    if (st.ok()) st = ParseReference(root);
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
      if (absl::Status st = DeclareName(s->get(), node, path); !st.ok()) return st;
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
    if (absl::Status st = r_.CheckKeys(t, path, {"name", "dtype", "value"}); !st.ok()) return st;
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
    if (absl::Status st = r_.CheckKeys(**init, init_path, {"dist", a_key, b_key, "scalable"});
        !st.ok()) {
      return st;
    }
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

  absl::Status ParseReference(const toml::table& root) {
    absl::StatusOr<const toml::table*> ref = r_.GetTable(root, "", "reference");
    if (!ref.ok()) return ref.status();
    if (absl::Status st = r_.CheckKeys(**ref, "reference", {"source", "plan"}); !st.ok()) {
      return st;
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
    if (absl::Status st = r_.CheckKeys(**cost, "cost", {"flops", "bytes", "flops_lower_bound"});
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
    if (absl::Status st = r_.CheckKeys(t, path, {"name", "kind", "params"}); !st.ok()) return st;
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
        if (absl::Status st = CheckShape(shape); !st.ok()) return st;
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
  std::map<std::string, std::string> declared_;  // name -> key path that declared it
};

}  // namespace

absl::StatusOr<ProblemSpec> ParseProblemSpec(std::string_view toml_text, std::string_view origin) {
  absl::StatusOr<TomlReader> reader = TomlReader::Parse(toml_text, origin);
  if (!reader.ok()) return reader.status();
  return SpecParser(*reader).Parse();
}

}  // namespace kjudge
