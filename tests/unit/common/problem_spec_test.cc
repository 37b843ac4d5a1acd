#include "common/problem_spec.h"

#include "absl/strings/str_cat.h"
#include "common/absl_compat.h"
#include "spec_fixture.h"
#include "test_util.h"

namespace kjudge {
namespace {

using ::kjudge::testing::kValidSpec;
using ::kjudge::testing::Message;
using ::kjudge::testing::Replace;
using ::kjudge::testing::SpecWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kOrigin = "problems/level1/99_RowSum/problem.toml";

absl::StatusOr<ProblemSpec> Parse(std::string_view text) { return ParseProblemSpec(text, kOrigin); }

TEST(ProblemSpecTest, ParsesAFullSpec) {
  absl::StatusOr<ProblemSpec> spec = Parse(kValidSpec);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name, "level1/99_RowSum");
  EXPECT_EQ(spec->level, 1);
  EXPECT_EQ(spec->title, "Row sum");
  EXPECT_EQ(spec->description, "Sum each row of X (M x N) into Y, scaled by alpha.");
  EXPECT_EQ(spec->sizes, (std::vector<std::string>{"M", "N"}));
  ASSERT_EQ(spec->test_shapes.size(), 2u);
  EXPECT_EQ(spec->test_shapes[1].sizes.at("N"), 37);
  EXPECT_EQ(spec->test_shapes[1].Label(), "M=3,N=37");
  ASSERT_EQ(spec->bench_shapes.size(), 1u);
  EXPECT_EQ(spec->bench_shapes[0].Label(), "M=4096,N=393216");
  EXPECT_EQ(spec->example_file, "solution.cu");

  ASSERT_EQ(spec->tensors.size(), 2u);
  const TensorSpec& x = spec->tensors[0];
  EXPECT_EQ(x.name, "X");
  EXPECT_EQ(x.dtype, DType::kF32);
  EXPECT_EQ(x.role, TensorRole::kIn);
  EXPECT_EQ(x.init.dist, InitSpec::Dist::kNormal);
  EXPECT_EQ(x.init.a, 0.0);
  EXPECT_EQ(x.init.b, 1.0);
  ASSERT_EQ(x.shape.size(), 2u);
  EXPECT_EQ(x.shape[1].ToString(), "N");
  EXPECT_EQ(spec->tensors[1].role, TensorRole::kOut);

  ASSERT_EQ(spec->scalars.size(), 1u);
  EXPECT_EQ(spec->scalars[0].name, "alpha");
  EXPECT_TRUE(spec->scalars[0].value.is_float);
  EXPECT_DOUBLE_EQ(spec->scalars[0].value.f, 0.5);

  EXPECT_EQ(spec->reference_source_file, "reference.cu");
  EXPECT_EQ(spec->reference_plan.scratch.size(), 1u);
  ASSERT_EQ(spec->reference_plan.launches.size(), 2u);
  // The plan's positions are file positions: the plan text starts on line 32.
  EXPECT_EQ(spec->reference_plan.first_line, 32);
  EXPECT_EQ(spec->reference_plan.launches[0].pos.line, 33);

  EXPECT_DOUBLE_EQ(spec->tolerance.atol, 1e-5);
  EXPECT_DOUBLE_EQ(spec->tolerance.rtol, 1e-5);
  EXPECT_DOUBLE_EQ(spec->tolerance.rel_l2, 1e-4);
  EXPECT_EQ(spec->cost.flops.ToString(), "M * N");

  ASSERT_EQ(spec->baselines.size(), 1u);
  EXPECT_EQ(spec->baselines[0].kind, "cub_segmented_reduce");
  EXPECT_EQ(spec->baselines[0].params.at("out"), "Y");
}

TEST(ProblemSpecTest, BindingsElementCountsAndLookup) {
  absl::StatusOr<ProblemSpec> spec = Parse(kValidSpec);
  ASSERT_TRUE(spec.ok()) << spec.status();
  const Shape& shape = spec->test_shapes[1];
  const Bindings b = spec->BindingsFor(shape);
  EXPECT_EQ(b.at("M").i, 3);
  EXPECT_FALSE(b.at("M").is_float);
  EXPECT_TRUE(b.at("alpha").is_float);
  EXPECT_DOUBLE_EQ(b.at("alpha").f, 0.5);
  EXPECT_EQ(spec->ElementCount(spec->tensors[0], shape).value(), 111);
  EXPECT_EQ(spec->ElementCount(spec->tensors[1], shape).value(), 3);
  EXPECT_EQ(spec->cost.bytes.EvaluateInt(b).value(), 4 * 111 + 12);
  ASSERT_NE(spec->FindTensor("Y"), nullptr);
  EXPECT_EQ(spec->FindTensor("Y")->name, "Y");
  EXPECT_EQ(spec->FindTensor("Z"), nullptr);
  EXPECT_EQ(spec->reference_plan.launches[1].NameExpression(b).value(), "row_finish<256>");
}

TEST(ProblemSpecTest, ShapeLabelFollowsOrder) {
  Shape shape;
  shape.sizes = {{"A", 1}, {"B", 2}, {"C", 3}};
  EXPECT_EQ(shape.Label(), "A=1,B=2,C=3");
  shape.order = {"C", "A", "B"};
  EXPECT_EQ(shape.Label(), "C=3,A=1,B=2");
}

TEST(ProblemSpecTest, ElementCountOverflowIsAnError) {
  absl::StatusOr<ProblemSpec> spec = Parse(kValidSpec);
  ASSERT_TRUE(spec.ok());
  Shape huge;
  huge.sizes = {{"M", int64_t{1} << 40}, {"N", int64_t{1} << 40}};
  EXPECT_THAT(Message(spec->ElementCount(spec->tensors[0], huge)), HasSubstr("has more than 2^63 elements at M=1099511627776"));
}

TEST(ProblemSpecTest, IntegerScalarsAndUniformInit) {
  std::string text = SpecWith("init = { dist = \"normal\", mean = 0.0, std = 1.0 }",
                              "init = { dist = \"uniform\", low = -2, high = 2.5 }");
  Replace(text, "dtype = \"f32\"\nvalue = 0.5", "dtype = \"i64\"\nvalue = 7");
  absl::StatusOr<ProblemSpec> spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->scalars[0].value.is_float);
  EXPECT_EQ(spec->scalars[0].value.i, 7);
  EXPECT_EQ(spec->BindingsFor(spec->test_shapes[0]).at("alpha").i, 7);
  EXPECT_EQ(spec->tensors[0].init.dist, InitSpec::Dist::kUniform);
  EXPECT_EQ(spec->tensors[0].init.a, -2.0);
  EXPECT_EQ(spec->tensors[0].init.b, 2.5);
}

TEST(ProblemSpecTest, OptionalKeysMayBeAbsent) {
  std::string text = SpecWith("example = \"solution.cu\"\n", "");
  text = text.substr(0, text.find("[[baseline]]"));
  Replace(text, "[[scalar]]\nname = \"alpha\"\ndtype = \"f32\"\nvalue = 0.5\n", "");
  Replace(text, ", alpha);", ");");
  absl::StatusOr<ProblemSpec> spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status() << "\n" << text;
  EXPECT_EQ(spec->example_file, "");
  EXPECT_TRUE(spec->scalars.empty());
  EXPECT_TRUE(spec->baselines.empty());
}

TEST(ProblemSpecTest, SingleLinePlanStringKeepsFileColumns) {
  std::string text(kValidSpec);
  const size_t begin = text.find("plan = \"\"\"");
  const size_t end = text.find("\"\"\"\n", begin + 10) + 4;
  text.replace(begin, end - begin, "plan = \"row_finish<<<M, 256>>(partial, Y);\"\n");
  EXPECT_THAT(Message(Parse(text)),
              StartsWith(std::string(kOrigin) + ":31:28: reference.plan: expected '>>>'"));
  // A literal string ('''...''') works the same way.
  Replace(text, "plan = \"row_finish<<<M, 256>>(partial, Y);\"", "plan = '''k<<<M, 256>>(X);'''");
  EXPECT_THAT(Message(Parse(text)),
              StartsWith(std::string(kOrigin) + ":31:21: reference.plan: expected '>>>'"));
}

class ValidatePlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<ProblemSpec> spec = Parse(kValidSpec);
    ASSERT_TRUE(spec.ok()) << spec.status();
    spec_ = *std::move(spec);
  }
  absl::Status Validate(std::string_view plan_text, int first_line = 1) {
    absl::StatusOr<LaunchPlan> plan = ParseLaunchPlan(plan_text, first_line);
    if (!plan.ok()) return plan.status();
    return ValidatePlanAgainstSpec(*plan, spec_);
  }
  ProblemSpec spec_;
};

TEST_F(ValidatePlanTest, AcceptsAPlanUsingEveryKindOfName) {
  EXPECT_TRUE(Validate("scratch tmp : f16[M * N];\n"
                       "k<float, cdiv(N, 4)><<<dim3(M, 2), 128, 4 * N>>>(X, tmp, M, alpha * 2.0);\n"
                       "k2<<<1, 1>>>(tmp, Y);")
                  .ok());
}

TEST_F(ValidatePlanTest, RejectsUnknownNamesWithPositions) {
  EXPECT_EQ(Message(Validate("k<<<1, 1>>>(X, Y);\nk<<<cdiv(K, 2), 1>>>(X);", 10)),
            "11:10: unknown name 'K' in the grid size of 'k'; expected a size (M, N) or a scalar "
            "(alpha)");
  EXPECT_EQ(Message(Validate("k<BLOCK><<<1, 1>>>(X);")),
            "1:3: unknown name 'BLOCK' in template argument 1 of 'k'; expected a size (M, N) or a "
            "scalar (alpha)");
  EXPECT_THAT(Message(Validate("k<<<1, dim3(32, Q)>>>(X);")),
              StartsWith("1:17: unknown name 'Q' in the block size of 'k'"));
  EXPECT_THAT(Message(Validate("k<<<1, 32, S>>>(X);")),
              StartsWith("1:12: unknown name 'S' in the shared memory size of 'k'"));
}

TEST_F(ValidatePlanTest, PointersOnlyAsBareArguments) {
  EXPECT_THAT(Message(Validate("k<<<1, 1>>>(X + 1, Y);")),
              StartsWith("1:13: tensor 'X' is a pointer and cannot be used in argument 1 of 'k'"));
  EXPECT_THAT(Message(Validate("scratch t : f32[N];\nscratch u : f32[t];\nk<<<1, 1>>>(t, u);")),
              StartsWith("2:17: scratch buffer 't' is a pointer and cannot be used in the element "
                         "count of scratch buffer 'u'"));
}

TEST_F(ValidatePlanTest, ScratchMustNotShadowProblemNames) {
  EXPECT_THAT(Message(Validate("scratch N : f32[4];\nk<<<1, 1>>>(X);")),
              StartsWith("1:1: scratch buffer 'N' has the name of a size"));
  EXPECT_THAT(Message(Validate("scratch alpha : f32[4];\nk<<<1, 1>>>(X);")),
              StartsWith("1:1: scratch buffer 'alpha' has the name of a scalar"));
}

TEST_F(ValidatePlanTest, EveryLaunchNeedsAnArgument) {
  EXPECT_EQ(Message(Validate("k<<<1, 1>>>(X);\n  init<<<1, 1>>>();")),
            "2:3: kernel 'init' is launched without arguments; expected at least one (its output "
            "tensor)");
}

struct BrokenCase {
  std::string name;
  std::string from;
  std::string to;
  std::string expected;  // the exact message, or a prefix of it
};

class BrokenSpecTest : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenSpecTest, ReportsFileKeyAndExpectation) {
  const BrokenCase& c = GetParam();
  absl::StatusOr<ProblemSpec> spec = Parse(SpecWith(c.from, c.to));
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(spec), StartsWith(std::string(kOrigin) + ":" + c.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BrokenSpecTest,
    ::testing::Values(
        BrokenCase{"MissingTolerance", "rtol = 1e-5\n", "",
                   "37:1: tolerance.rtol: missing required key 'tolerance.rtol'"},
        BrokenCase{"MissingTitle", "title = \"Row sum\"\n", "",
                   "1:1: title: missing required key 'title'"},
        BrokenCase{"UnknownSizeInShape", "shape = [\"M\", \"N\"]", "shape = [\"M\", \"K * 2\"]",
                   "14:16: tensor[0].shape[1]: unknown size 'K' in 'K * 2'; expected one of the "
                   "sizes: M, N"},
        BrokenCase{"ShapeExpressionSyntax", "shape = [\"M\", \"N\"]", "shape = [\"M\", \"N *\"]",
                   "14:19: tensor[0].shape[1]: expected an expression (a number, a name or '('), found end of input"},
        BrokenCase{"ShapeMissingASize", "{ M = 3, N = 37 }", "{ M = 3 }",
                   "7:35: test_shapes[1]: missing size 'N'; every shape must give every size (M, "
                   "N)"},
        BrokenCase{"ShapeWithUnknownSize", "{ M = 3, N = 37 }", "{ M = 3, N = 37, K = 2 }",
                   "7:52: test_shapes[1].K: unknown size 'K'; expected one of: M, N"},
        BrokenCase{"ShapeSizeZero", "{ M = 1, N = 1 }", "{ M = 0, N = 1 }",
                   "7:23: test_shapes[0].M: expected an integer >= 1, found 0"},
        BrokenCase{"NoBenchShapes", "bench_shapes = [ { M = 4096, N = 393216 } ]",
                   "bench_shapes = []", "8:16: bench_shapes: expected at least one shape"},
        BrokenCase{"BadDtype", "dtype = \"f32\"\nshape = [\"M\"]", "dtype = \"float\"\nshape = [\"M\"]",
                   "20:9: tensor[1].dtype: unknown dtype 'float'; expected one of f32, f16"},
        BrokenCase{"BadRole", "role = \"out\"", "role = \"output\"",
                   "22:8: tensor[1].role: unknown role 'output'; expected \"in\" or \"out\""},
        BrokenCase{"InputWithoutInit", "init = { dist = \"normal\", mean = 0.0, std = 1.0 }\n", "",
                   "11:1: tensor[0].init: missing required key 'tensor[0].init'"},
        BrokenCase{"BadDistribution", "dist = \"normal\"", "dist = \"gauss\"",
                   "16:17: tensor[0].init.dist: unknown distribution 'gauss'"},
        BrokenCase{"NonPositiveStd", "std = 1.0", "std = 0.0",
                   "16:8: tensor[0].init: expected std > 0"},
        BrokenCase{"DuplicateName", "name = \"Y\"", "name = \"X\"",
                   "19:8: tensor[1].name: name 'X' is already used by tensor[0].name"},
        BrokenCase{"TensorNamedLikeASize", "name = \"Y\"", "name = \"M\"",
                   "19:8: tensor[1].name: name 'M' is already used by sizes[0]"},
        BrokenCase{"NotAnIdentifier", "sizes = [\"M\", \"N\"]", "sizes = [\"M\", \"2N\"]",
                   "6:15: sizes[1]: '2N' is not a valid name; expected a C identifier"},
        BrokenCase{"WrongType", "level = 1", "level = \"one\"",
                   "2:9: level: expected an integer, found a string"},
        BrokenCase{"UnknownTopLevelKey", "[tolerance]", "[tolerence]",
                   "37:2: tolerence: unknown key 'tolerence'; expected one of: name, level"},
        BrokenCase{"NegativeTolerance", "atol = 1e-5", "atol = -1.0",
                   "38:8: tolerance.atol: expected a tolerance >= 0, found -1"},
        BrokenCase{"BadReferencePlanSyntax", "row_finish<256><<<M, 256, 0>>>",
                   "row_finish<256><<<M, 256, 0>>",
                   "34:28: reference.plan: expected '>>>' to close the launch configuration, "
                   "found '>>'"},
        BrokenCase{"ReferencePlanUnknownName", "(partial, Y, M, cdiv(N, 1024))",
                   "(partial, Z, M, cdiv(N, 1024))",
                   "34:41: reference.plan: unknown name 'Z' in argument 2 of 'row_finish'; "
                   "expected a tensor (X, Y) or a scratch buffer (partial) or a size (M, N) or a "
                   "scalar (alpha)"},
        BrokenCase{"ReferencePlanTensorInGrid", "<<<M, 256, 0>>>", "<<<X, 256, 0>>>",
                   "34:19: reference.plan: tensor 'X' is a pointer and cannot be used in the grid "
                   "size of 'row_finish'"},
        BrokenCase{"ReferencePlanScratchShadowsTensor", "scratch partial : f32",
                   "scratch X : f32",
                   "32:1: reference.plan: scratch buffer 'X' has the name of a tensor"},
        BrokenCase{"ReferencePlanDivisionByZeroAtAShape", "row_finish<256>", "row_finish<256 / (M - 1)>",
                   "34:16: reference.plan: division by zero in '256 / (M - 1)' (at M=1,N=1)"},
        BrokenCase{"ReferencePlanZeroGrid", "<<<M, 256, 0>>>", "<<<M - 1, 256, 0>>>",
                   "34:19: reference.plan at M=1,N=1: 'M - 1' is 0; expected a grid/block size >= 1"},
        BrokenCase{"CostUnknownSize", "flops = \"M * N\"", "flops = \"M * K\"",
                   "43:14: cost.flops: unknown size 'K' in 'M * K'"},
        BrokenCase{"TomlSyntax", "level = 1", "level = = 1",
                   "2:9: invalid TOML: "},
        BrokenCase{"NoOutputTensor", "role = \"out\"", "role = \"in\"\ninit = { dist = \"uniform\", low = 0, high = 1 }",
                   "11:1: tensor: no tensor has role = \"out\"; expected at least one output"},
        BrokenCase{"InitOnOutput", "role = \"out\"", "role = \"out\"\ninit = { dist = \"uniform\", low = 0, high = 1 }",
                   "23:8: tensor[1].init: an output tensor has no init"},
        BrokenCase{"IntScalarWithFloatValue", "dtype = \"f32\"\nvalue = 0.5", "dtype = \"i32\"\nvalue = 0.5",
                   "27:9: scalar[0].value: expected an integer, found a float"}),
    [](const ::testing::TestParamInfo<BrokenCase>& param) { return param.param.name; });

TEST(ProblemSpecTest, TestShapeInputScale) {
  absl::StatusOr<ProblemSpec> spec = Parse(SpecWith(
      "test_shapes = [ { M = 1, N = 1 }, { M = 3, N = 37 } ]",
      "test_shapes = [ { M = 1, N = 1 }, { M = 4, N = 1000, input_scale = 1000.0 } ]"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->test_shapes[0].input_scale, 1.0);
  EXPECT_EQ(spec->test_shapes[0].Label(), "M=1,N=1");
  EXPECT_EQ(spec->test_shapes[1].input_scale, 1000.0);
  EXPECT_EQ(spec->test_shapes[1].Label(), "M=4,N=1000,scale=1000");
  // Float inits are scaled (both parameters); integers and scalable = false are not.
  const InitSpec scaled = ScaledInit(spec->tensors[0].init, DType::kF32, 1000.0);
  EXPECT_EQ(scaled.a, 0.0);
  EXPECT_EQ(scaled.b, 1000.0);
  EXPECT_EQ(ScaledInit(spec->tensors[0].init, DType::kI32, 1000.0).b, 1.0);
  InitSpec fixed = spec->tensors[0].init;
  fixed.scalable = false;
  EXPECT_EQ(ScaledInit(fixed, DType::kF32, 1000.0).b, 1.0);

  EXPECT_THAT(Message(Parse(SpecWith("{ M = 3, N = 37 } ]", "{ M = 3, N = 37, input_scale = 0 } ]"))),
              HasSubstr("expected a finite input scale > 0"));
  EXPECT_THAT(Message(Parse(SpecWith("bench_shapes = [ { M = 4096, N = 393216 } ]",
                                     "bench_shapes = [ { M = 4096, N = 393216, input_scale = 2.0 } ]"))),
              HasSubstr("input_scale is for test shapes only"));
  EXPECT_THAT(Message(Parse(SpecWith(R"(sizes = ["M", "N"])", R"(sizes = ["M", "input_scale"])"))),
              HasSubstr("'input_scale' is reserved"));
}

TEST(ProblemSpecTest, InitScalable) {
  absl::StatusOr<ProblemSpec> spec =
      Parse(SpecWith("mean = 0.0, std = 1.0 }", "mean = 0.0, std = 1.0, scalable = false }"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->tensors[0].init.scalable);
  EXPECT_THAT(Message(Parse(SpecWith("mean = 0.0, std = 1.0 }", "mean = 0.0, std = 1.0, scalable = 1 }"))),
              HasSubstr("expected true or false"));
}

TEST(ProblemSpecTest, InitTransform) {
  using T = InitSpec::Transform;
  absl::StatusOr<ProblemSpec> spec = Parse(kValidSpec);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->tensors[0].init.transform, T::kNone);  // the default
  for (auto [name, want] : {std::pair{"softmax", T::kSoftmax}, std::pair{"tril", T::kTril},
                            std::pair{"triu", T::kTriu}, std::pair{"sign", T::kSign}}) {
    spec = Parse(SpecWith("std = 1.0 }", absl::StrCat("std = 1.0, transform = \"", name, "\" }")));
    ASSERT_TRUE(spec.ok()) << name << ": " << spec.status();
    EXPECT_EQ(spec->tensors[0].init.transform, want) << name;
    EXPECT_EQ(TransformName(want), name);
    // input_scale scales the draw; the transform stays (it applies after the scaling).
    EXPECT_EQ(ScaledInit(spec->tensors[0].init, DType::kF32, 10.0).transform, want);
  }
}

TEST(ProblemSpecTest, InitTransformErrorsSayWhere) {
  // Line 16 is X's init; its transform value starts at column 62.
  EXPECT_THAT(Message(Parse(SpecWith("std = 1.0 }", "std = 1.0, transform = \"cumsum\" }"))),
              StartsWith(std::string(kOrigin) + ":16:62: tensor[0].init.transform: unknown "
                         "transform 'cumsum'; expected \"softmax\", \"tril\", \"triu\", "
                         "\"symmetric\" or \"sign\""));
  std::string integer = SpecWith("std = 1.0 }", "std = 1.0, transform = \"tril\" }");
  Replace(integer, "dtype = \"f32\"\nshape = [\"M\", \"N\"]",
          "dtype = \"i32\"\nshape = [\"M\", \"N\"]");
  EXPECT_THAT(Message(Parse(integer)),
              StartsWith(std::string(kOrigin) + ":16:62: tensor[0].init.transform: transform "
                         "'tril' needs a float tensor; 'X' is i32"));
  std::string vector = SpecWith("std = 1.0 }", "std = 1.0, transform = \"triu\" }");
  Replace(vector, "shape = [\"M\", \"N\"]\nrole = \"in\"", "shape = [\"N\"]\nrole = \"in\"");
  EXPECT_THAT(Message(Parse(vector)),
              StartsWith(std::string(kOrigin) + ":16:62: tensor[0].init.transform: transform "
                         "'triu' needs a tensor of rank >= 2; 'X' has rank 1"));
  EXPECT_THAT(Message(Parse(SpecWith("std = 1.0 }", "std = 1.0, transform = 3 }"))),
              HasSubstr("tensor[0].init.transform: expected a string"));
}

TEST(ProblemSpecTest, SymmetricNeedsSquareMatricesAtEveryShape) {
  // M = 3, N = 37 is not square: the error names the shape and points at the transform.
  EXPECT_THAT(Message(Parse(SpecWith("std = 1.0 }", "std = 1.0, transform = \"symmetric\" }"))),
              StartsWith(std::string(kOrigin) + ":16:62: tensor[0].init.transform: transform "
                         "'symmetric' needs square matrices; 'X' is 3 x 37 in its last two "
                         "dimensions at M=3,N=37"));
  std::string square = SpecWith("std = 1.0 }", "std = 1.0, transform = \"symmetric\" }");
  Replace(square, "{ M = 3, N = 37 }", "{ M = 37, N = 37 }");
  Replace(square, "{ M = 4096, N = 393216 }", "{ M = 4096, N = 4096 }");
  absl::StatusOr<ProblemSpec> spec = Parse(square);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->tensors[0].init.transform, InitSpec::Transform::kSymmetric);
}

TEST(ProblemSpecTest, FlopsLowerBound) {
  absl::StatusOr<ProblemSpec> spec = Parse(kValidSpec);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->cost.flops_lower_bound);  // the default: flops are not a lower bound
  spec = Parse(SpecWith(R"(flops = "M * N")", "flops = \"M * N\"\nflops_lower_bound = true"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->cost.flops_lower_bound);
  EXPECT_THAT(Message(Parse(SpecWith(R"(flops = "M * N")",
                                     "flops = \"M * N\"\nflops_lower_bound = \"yes\""))),
              HasSubstr("cost.flops_lower_bound: expected true or false, found a string"));
}

TEST(ProblemSpecTest, RegimesDefaultToNone) {
  absl::StatusOr<ProblemSpec> spec = Parse(kValidSpec);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->regimes.empty());
  EXPECT_EQ(spec->DrawableRegimes(), std::vector<InputRegime>{InputRegime::kDeclared});
}

// The regimes line, inserted as line 10 of kValidSpec (after `example`).
std::string SpecWithRegimes(std::string_view regimes_line) {
  return SpecWith("example = \"solution.cu\"",
                  absl::StrCat("example = \"solution.cu\"\n", ToAbsl(regimes_line)));
}

TEST(ProblemSpecTest, RegimesParseInFileOrder) {
  absl::StatusOr<ProblemSpec> spec = Parse(SpecWithRegimes(
      R"(regimes = ["zeros", "offset", "large", "ties", "positive", "negative"])"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  using R = InputRegime;
  EXPECT_EQ(spec->regimes, (std::vector<R>{R::kZeros, R::kOffset, R::kLarge, R::kTies,
                                           R::kPositive, R::kNegative}));
  EXPECT_EQ(spec->DrawableRegimes(), (std::vector<R>{R::kDeclared, R::kZeros, R::kOffset,
                                                     R::kLarge, R::kTies, R::kPositive,
                                                     R::kNegative}));
  spec = Parse(SpecWithRegimes("regimes = []"));
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->regimes.empty());
}

TEST(ProblemSpecTest, RegimeErrorsSayWhere) {
  // Line 10; the second element starts at column 22.
  EXPECT_EQ(Message(Parse(SpecWithRegimes(R"(regimes = ["offset", "offest"])"))),
            std::string(kOrigin) + ":10:22: regimes[1]: unknown regime 'offest'; expected one "
                                   "of offset, large, ties, zeros, positive, negative");
  EXPECT_THAT(Message(Parse(SpecWithRegimes(R"(regimes = ["ties", "ties"])"))),
              StartsWith(std::string(kOrigin) + ":10:20: regimes[1]: regime 'ties' is listed "
                                                "twice"));
  EXPECT_THAT(Message(Parse(SpecWithRegimes(R"(regimes = ["declared"])"))),
              StartsWith(std::string(kOrigin) + ":10:12: regimes[0]: 'declared' is always part "
                                                "of a problem's regimes and is not listed"));
  EXPECT_THAT(Message(Parse(SpecWithRegimes(R"(regimes = ["Offset"])"))),
              HasSubstr("unknown regime 'Offset'"));
  EXPECT_THAT(Message(Parse(SpecWithRegimes("regimes = [3]"))),
              StartsWith(std::string(kOrigin) + ":10:12: regimes[0]: expected a regime name "
                                                "(a string), found an integer"));
  EXPECT_THAT(Message(Parse(SpecWithRegimes(R"(regimes = "offset")"))),
              HasSubstr("regimes: expected an array"));
  EXPECT_THAT(Message(Parse(SpecWithRegimes(R"(regime = ["offset"])"))),
              HasSubstr("regime"));  // a typo of the key is an unknown key, not ignored
}

TEST(InputRegimeTest, NamesRoundTrip) {
  EXPECT_EQ(ParseRegimeName("declared"), InputRegime::kDeclared);
  for (InputRegime regime : kListableRegimes) {
    EXPECT_EQ(ParseRegimeName(RegimeName(regime)), regime) << RegimeName(regime);
    EXPECT_THAT(std::string(ListableRegimeNames()), HasSubstr(RegimeName(regime)));
  }
  EXPECT_EQ(ParseRegimeName(""), std::nullopt);
  EXPECT_EQ(ParseRegimeName(" offset"), std::nullopt);
  // The numbering is the device fill's argument (worker/judge/device_utilities.cc).
  EXPECT_EQ(static_cast<int>(InputRegime::kNegative), 6);
}

}  // namespace
}  // namespace kjudge
