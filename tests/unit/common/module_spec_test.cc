// ParseProblemSpec on problems defined by a PyTorch module ([reference] module and the [module]
// table, docs/pytorch-problems.md section 1): the binding is parsed as written, and every rule
// has an error that names the file position and the key.
#include <string>
#include <string_view>

#include "common/problem_spec.h"
#include "spec_fixture.h"
#include "test_util.h"

namespace kjudge {
namespace {

using ::kjudge::testing::kModuleSpec;
using ::kjudge::testing::Message;
using ::kjudge::testing::Replace;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kOrigin = "problems/level2/linear_relu/problem.toml";


absl::StatusOr<ProblemSpec> Parse(std::string_view text) { return ParseProblemSpec(text, kOrigin); }

std::string ModuleSpecWith(std::string_view from, std::string_view to) {
  std::string text(kModuleSpec);
  Replace(text, from, to);
  return text;
}

// "<origin>:<line>:<column>: " of the first occurrence of `needle` in `text` (1-based, as the
// parser reports positions), so expectations follow the fixture when it changes.
std::string At(std::string_view text, std::string_view needle) {
  const size_t offset = text.find(needle);
  EXPECT_NE(offset, std::string_view::npos) << needle;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return std::string(kOrigin) + ":" + std::to_string(line) + ":" +
         std::to_string(offset - line_start + 1) + ": ";
}

TEST(ModuleSpecTest, ParsesTheBinding) {
  absl::StatusOr<ProblemSpec> spec = Parse(kModuleSpec);
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_TRUE(spec->module.has_value());
  const ModuleBinding& m = *spec->module;
  EXPECT_EQ(m.module_file, "reference.py");
  EXPECT_EQ(m.globals, (std::vector<std::string>{"batch_size", "in_features", "out_features"}));
  EXPECT_EQ(m.forward, (std::vector<std::string>{"x"}));
  EXPECT_EQ(m.outputs, (std::vector<std::string>{"out"}));
  // In file order; the dotted keys are one key each.
  EXPECT_EQ(m.parameters, (std::vector<std::pair<std::string, std::string>>{
                              {"linear.weight", "linear_weight"}, {"linear.bias", "linear_bias"}}));
  EXPECT_EQ(m.precision, "f64");
  EXPECT_EQ(m.bench_precision, "f32");
  // Module-only: no CUDA reference, so only a worker with PyTorch can judge it.
  EXPECT_FALSE(spec->HasCudaReference());
  EXPECT_EQ(spec->reference_source_file, "");
  EXPECT_TRUE(spec->reference_plan.launches.empty());
}

TEST(ModuleSpecTest, OptionalKeysHaveDefaults) {
  std::string text = ModuleSpecWith("bench_precision = \"f32\"\n", "precision = \"f32\"\n");
  Replace(text, "globals = [\"batch_size\", \"in_features\", \"out_features\"]\n", "");
  absl::StatusOr<ProblemSpec> spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->module->globals.empty());
  EXPECT_EQ(spec->module->precision, "f32");
  EXPECT_EQ(spec->module->bench_precision, "");  // "" = precision
}

TEST(ModuleSpecTest, AModuleWithoutParametersBindsEverythingThroughForward) {
  std::string text(kModuleSpec);
  Replace(text, "forward = [\"x\"]", "forward = [\"x\", \"linear_weight\", \"linear_bias\"]");
  text.replace(text.find("[module.parameters]"),
               text.find("[tolerance]") - text.find("[module.parameters]"), "");
  absl::StatusOr<ProblemSpec> spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->module->parameters.empty());
  EXPECT_EQ(spec->module->forward.size(), 3u);
}

TEST(ModuleSpecTest, BothReferencesMayBeGiven) {
  const std::string text = ModuleSpecWith(
      "module = \"reference.py\"",
      "source = \"reference.cu\"\nplan = \"linear_relu<<<batch_size, 256>>>(x, linear_weight, "
      "linear_bias, out, batch_size, in_features, out_features);\"\nmodule = \"reference.py\"");
  absl::StatusOr<ProblemSpec> spec = Parse(text);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->HasCudaReference());
  EXPECT_EQ(spec->reference_source_file, "reference.cu");
  EXPECT_EQ(spec->reference_plan.launches.size(), 1u);
  ASSERT_TRUE(spec->module.has_value());
}

TEST(ModuleSpecTest, ACudaOnlyProblemHasNoBinding) {
  absl::StatusOr<ProblemSpec> spec = Parse(testing::kValidSpec);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_FALSE(spec->module.has_value());
  EXPECT_TRUE(spec->HasCudaReference());
}

TEST(ModuleSpecTest, AReferenceIsRequired) {
  const std::string text = ModuleSpecWith("module = \"reference.py\"\n", "");
  EXPECT_THAT(Message(Parse(text)),
              AllOf(StartsWith(At(text, "[reference]") + "reference: no reference; expected source"),
                    HasSubstr("or module = \"reference.py\"")));
}

TEST(ModuleSpecTest, SourceAndPlanGoTogether) {
  const std::string text =
      ModuleSpecWith("module = \"reference.py\"", "source = \"reference.cu\"\nmodule = \"reference.py\"");
  EXPECT_THAT(Message(Parse(text)),
              AllOf(HasSubstr("reference.plan: missing required key 'reference.plan'"),
                    HasSubstr("a CUDA reference needs both source and its plan")));
}

TEST(ModuleSpecTest, ModuleFileNameMustBeAPlainPythonFile) {
  for (const std::string_view bad : {"../reference.py", "sub/reference.py", "reference.cu", ".py",
                                     ".hidden.py", "/etc/x.py"}) {
    const std::string text =
        ModuleSpecWith("module = \"reference.py\"", "module = \"" + std::string(bad) + "\"");
    EXPECT_THAT(Message(Parse(text)),
                StartsWith(At(text, "\"" + std::string(bad)) + "reference.module: '" + std::string(bad) +
                           "' is not a plain Python file name"))
        << bad;
  }
}

TEST(ModuleSpecTest, ModuleWithoutTableAndTableWithoutModule) {
  std::string no_table(kModuleSpec);
  no_table.replace(no_table.find("[module]"), no_table.find("[tolerance]") - no_table.find("[module]"), "");
  EXPECT_THAT(Message(Parse(no_table)),
              StartsWith(At(no_table, "\"reference.py\"") +
                         "reference.module: a module reference needs a [module] table"));

  const std::string no_module =
      ModuleSpecWith("module = \"reference.py\"", "source = \"reference.cu\"\nplan = \"k<<<1, 1>>>(out);\"");
  EXPECT_THAT(Message(Parse(no_module)),
              StartsWith(At(no_module, "[module]\n") +
                         "module: a [module] table without a module to bind; expected module = "
                         "\"reference.py\" in [reference]"));
}

TEST(ModuleSpecTest, UnknownKeysAreErrors) {
  const std::string text = ModuleSpecWith("outputs = [\"out\"]", "outputs = [\"out\"]\nforwards = [\"x\"]");
  EXPECT_THAT(Message(Parse(text)),
              StartsWith(At(text, "forwards") + "module.forwards: unknown key 'forwards'; expected one of: "
                                                "globals, forward, outputs, precision, bench_precision, "
                                                "parameters"));
  const std::string in_reference =
      ModuleSpecWith("module = \"reference.py\"", "module = \"reference.py\"\nmodules = \"x.py\"");
  EXPECT_THAT(Message(Parse(in_reference)),
              StartsWith(At(in_reference, "modules") + "reference.modules: unknown key 'modules'"));
}

TEST(ModuleSpecTest, GlobalsMustBeDeclaredSizes) {
  const std::string globals = "globals = [\"batch_size\", \"in_features\", \"out_features\"]";
  const std::string text = ModuleSpecWith(globals, "globals = [\"batch_size\", \"hidden\"]");
  EXPECT_THAT(Message(Parse(text)),
              StartsWith(At(text, "\"hidden\"") +
                         "module.globals[1]: 'hidden' is not a size of this problem; expected one of: "
                         "batch_size, in_features, out_features"));
  const std::string twice = ModuleSpecWith(globals, "globals = [\"batch_size\", \"in_features\", \"batch_size\"]");
  EXPECT_THAT(Message(Parse(twice)), HasSubstr("module.globals[2]: size 'batch_size' is listed twice"));
  const std::string not_string = ModuleSpecWith(globals, "globals = [\"batch_size\", \"in_features\", 3]");
  EXPECT_THAT(Message(Parse(not_string)),
              HasSubstr("module.globals[2]: expected a size name (a string), found an integer"));
}

TEST(ModuleSpecTest, ForwardNamesKnownInputTensors) {
  const std::string unknown = ModuleSpecWith("forward = [\"x\"]", "forward = [\"X\"]");
  EXPECT_THAT(Message(Parse(unknown)),
              StartsWith(At(unknown, "\"X\"") +
                         "module.forward[0]: unknown tensor 'X'; expected one of the \"in\" tensors: "
                         "x, linear_weight, linear_bias"));
  const std::string output = ModuleSpecWith("forward = [\"x\"]", "forward = [\"x\", \"out\"]");
  EXPECT_THAT(Message(Parse(output)),
              HasSubstr("module.forward[1]: tensor 'out' is not role = \"in\"; expected one of the "
                        "\"in\" tensors"));
}

TEST(ModuleSpecTest, EveryInputIsBoundExactlyOnce) {
  // Twice: forward and a parameter.
  const std::string twice = ModuleSpecWith("forward = [\"x\"]", "forward = [\"x\", \"linear_bias\"]");
  EXPECT_THAT(Message(Parse(twice)),
              StartsWith(At(twice, "\"linear_bias\"\n\n[tolerance]") +
                         "module.parameters.\"linear.bias\": tensor 'linear_bias' is already bound by "
                         "module.forward[1]; expected each tensor exactly once"));
  // Twice in forward.
  const std::string twice_forward = ModuleSpecWith("forward = [\"x\"]", "forward = [\"x\", \"x\"]");
  EXPECT_THAT(Message(Parse(twice_forward)),
              HasSubstr("module.forward[1]: tensor 'x' is already bound by module.forward[0]"));
  // Never.
  const std::string never = ModuleSpecWith("\"linear.bias\" = \"linear_bias\"\n", "");
  EXPECT_THAT(Message(Parse(never)),
              StartsWith(At(never, "[module]\n") +
                         "module: input tensor 'linear_bias' is not bound; expected it in "
                         "module.forward or as a value of [module.parameters]"));
}

TEST(ModuleSpecTest, ParametersMapStateDictKeysToInputTensors) {
  const std::string unknown = ModuleSpecWith("\"linear.bias\" = \"linear_bias\"", "\"linear.bias\" = \"bias\"");
  EXPECT_THAT(Message(Parse(unknown)),
              StartsWith(At(unknown, "\"bias\"") +
                         "module.parameters.\"linear.bias\": unknown tensor 'bias'; expected one of the "
                         "\"in\" tensors"));
  // Unquoted, a dotted key is a nested table: the message says to quote it.
  const std::string unquoted = ModuleSpecWith("\"linear.bias\" = \"linear_bias\"", "linear.bias = \"linear_bias\"");
  EXPECT_THAT(Message(Parse(unquoted)),
              AllOf(HasSubstr("module.parameters.\"linear\": expected a tensor name (a string), found a table"),
                    HasSubstr("quote state_dict keys with dots")));
  const std::string output = ModuleSpecWith("\"linear.bias\" = \"linear_bias\"", "\"linear.bias\" = \"out\"");
  EXPECT_THAT(Message(Parse(output)),
              HasSubstr("module.parameters.\"linear.bias\": tensor 'out' is not role = \"in\""));
}

TEST(ModuleSpecTest, EveryOutputIsReturnedExactlyOnce) {
  const std::string missing = ModuleSpecWith("outputs = [\"out\"]", "outputs = []");
  EXPECT_THAT(Message(Parse(missing)),
              StartsWith(At(missing, "[module]\n") +
                         "module: output tensor 'out' is not bound; expected it in module.outputs"));
  const std::string twice = ModuleSpecWith("outputs = [\"out\"]", "outputs = [\"out\", \"out\"]");
  EXPECT_THAT(Message(Parse(twice)),
              HasSubstr("module.outputs[1]: tensor 'out' is already bound by module.outputs[0]"));
  const std::string input = ModuleSpecWith("outputs = [\"out\"]", "outputs = [\"out\", \"x\"]");
  EXPECT_THAT(Message(Parse(input)),
              HasSubstr("module.outputs[1]: tensor 'x' is not role = \"out\"; expected one of the "
                        "\"out\" tensors: out"));
  const std::string absent = ModuleSpecWith("outputs = [\"out\"]\n", "");
  EXPECT_THAT(Message(Parse(absent)), HasSubstr("missing required key 'module.outputs'"));
}

TEST(ModuleSpecTest, PrecisionIsF64OrF32) {
  const std::string text = ModuleSpecWith("bench_precision = \"f32\"", "bench_precision = \"bf16\"");
  EXPECT_THAT(Message(Parse(text)),
              StartsWith(At(text, "\"bf16\"") +
                         "module.bench_precision: unknown precision 'bf16'; expected \"f64\" or \"f32\""));
  const std::string number = ModuleSpecWith("bench_precision = \"f32\"", "precision = 64");
  EXPECT_THAT(Message(Parse(number)), HasSubstr("module.precision: expected a string, found an integer"));
}

}  // namespace
}  // namespace kjudge
