// kjudge-reproduce: regenerates one input set of a judged job on this machine's GPU, with the
// judge's own kernels (bit-exact: the generator's float math is CUDA's), and writes each "in"
// tensor as a .npy file plus manifest.json. `kjudge reproduce JOB` (client/) finds the set's
// key, shape and regime in the job's result and runs this binary; it can also be run by hand:
//
//   kjudge-reproduce --problems problems --problem level1/19_ReLU --shape M=3,N=37
//       --key <64 hex digits> --regime declared --out repro/ [--set "test 1"] [--json]
//
// The key, shape and regime are JobResult.input_keys[i] (revealed with the verdict). Every
// argument is checked before the GPU is touched. Exit codes: 0 written; 2 bad usage or input
// (unknown problem, shape or regime, bad key); 3 no CUDA GPU here ("kjudge reproduce needs a
// CUDA GPU: ..."); 1 the generation or the writing failed.
//
// Files (in --out, created when missing): <tensor>.npy for each "in" tensor in spec order,
// little-endian, C order, the tensor's shape at that problem shape. f32/f64/f16/integers as
// numpy's own dtypes; bf16 as '<u2' and fp8 as '|u1' holding the raw bits (manifest: dtype
// "bf16" / "fp8_e4m3" / "fp8_e5m2", numpy_dtype "uint16" / "uint8"). manifest.json: problem,
// shape, set, regime, key_hex, input_scale, gpu, and per tensor name, file, dtype,
// numpy_dtype, shape, bytes and sha256 (of the raw tensor bytes, the .npy payload).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/input_regime.h"
#include "common/problem_dir.h"
#include "common/problem_spec.h"
#include "common/sha256.h"
#include "nlohmann/json.hpp"
#include "worker/gpu/device_buffer.h"
#include "worker/gpu/guard_bands.h"
#include "worker/gpu/runner_error.h"
#include "worker/gpu/secret_key.h"
#include "worker/judge/cubin_cache.h"
#include "worker/judge/device_tensors.h"
#include "worker/judge/device_utilities.h"
#include "worker/judge/gpu_context.h"
#include "worker/judge/regime_deck.h"

namespace kjudge::runner {
namespace {

namespace fs = std::filesystem;

enum ExitCode { kWritten = 0, kFailed = 1, kUsage = 2, kNoGpu = 3 };

struct ReproduceArgs {
  std::string problems;
  std::string problem;
  std::string shape;
  std::string key_hex;
  std::string regime = "declared";
  std::string set;  // only recorded in the manifest
  std::string out;
  std::string cache_dir;
  int device = 0;
  bool json = false;
};

// What the arguments name, resolved without a GPU.
struct Request {
  ProblemSpec spec;
  Shape shape;
  SecretKey key;
  InputRegime regime = InputRegime::kDeclared;
};

absl::StatusOr<SecretKey> ParseKeyHex(const std::string& hex) {
  if (hex.size() != 64) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--key: expected 64 hex digits (a 256-bit key, as JobResult.input_keys[i].key_hex), got ",
        hex.size(), " characters"));
  }
  SecretKey key;
  for (size_t i = 0; i < 64; ++i) {
    const char c = hex[i];
    uint32_t digit = 0;
    if (c >= '0' && c <= '9') {
      digit = static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      digit = static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "--key: character ", i + 1, " is not a hex digit; expected 64 of 0-9a-f"));
    }
    // Byte i / 2 of the key; words little-endian (SecretKey::Hex).
    const size_t byte = i / 2;
    const uint32_t shift = static_cast<uint32_t>(8 * (byte % 4) + (i % 2 == 0 ? 4 : 0));
    key.words[byte / 4] |= digit << shift;
  }
  return key;
}

absl::StatusOr<ProblemSpec> LoadSpec(const std::string& problems, const std::string& name) {
  if (name.empty() || name.find("..") != std::string::npos || name.front() == '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("--problem '", name, "': expected a catalog name such as level1/19_ReLU"));
  }
  const fs::path toml = fs::path(problems) / name / "problem.toml";
  absl::StatusOr<std::string> text = ReadTextFile(toml);
  if (!text.ok()) {
    return absl::NotFoundError(absl::StrCat("unknown problem '", name, "': no ", toml.string(),
                                            "; pass the catalog folder with --problems"));
  }
  KJ_ASSIGN_OR_RETURN(ProblemSpec spec, ParseProblemSpec(*text, toml.string()));
  if (spec.name != name) {
    return absl::InvalidArgumentError(absl::StrCat(toml.string(), " names problem '", spec.name,
                                                   "', not '", name, "'"));
  }
  return spec;
}

absl::StatusOr<Shape> FindShape(const ProblemSpec& spec, const std::string& label) {
  std::vector<std::string> labels;
  for (const std::vector<Shape>* shapes : {&spec.test_shapes, &spec.bench_shapes}) {
    for (const Shape& shape : *shapes) {
      if (shape.Label() == label) return shape;
      labels.push_back(shape.Label());
    }
  }
  return absl::NotFoundError(absl::StrCat("unknown shape '", label, "' for problem ", spec.name,
                                          "; its shapes: ", absl::StrJoin(labels, "  ")));
}

absl::StatusOr<Request> Resolve(const ReproduceArgs& args) {
  Request request;
  KJ_ASSIGN_OR_RETURN(request.spec, LoadSpec(args.problems, args.problem));
  KJ_ASSIGN_OR_RETURN(request.shape, FindShape(request.spec, args.shape));
  KJ_ASSIGN_OR_RETURN(request.key, ParseKeyHex(args.key_hex));
  const std::optional<InputRegime> regime = ParseRegimeName(args.regime);
  if (!regime.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("--regime '", args.regime,
                                                   "': expected declared or one of ",
                                                   std::string(ListableRegimeNames())));
  }
  request.regime = *regime;
  return request;
}

// numpy's descr for a dtype, and its name as numpy spells it (raw bits where numpy has none).
struct NpyType {
  const char* descr;
  const char* name;
};

NpyType NpyTypeOf(DType dtype) {
  switch (dtype) {
    case DType::kF32: return {"<f4", "float32"};
    case DType::kF64: return {"<f8", "float64"};
    case DType::kF16: return {"<f2", "float16"};
    case DType::kBF16: return {"<u2", "uint16"};
    case DType::kI32: return {"<i4", "int32"};
    case DType::kI64: return {"<i8", "int64"};
    case DType::kU8: return {"|u1", "uint8"};
    case DType::kI8: return {"|i1", "int8"};
    case DType::kFP8E4M3:
    case DType::kFP8E5M2: return {"|u1", "uint8"};
  }
  return {"|u1", "uint8"};
}

// bf16 and fp8: numpy has no such dtype, so the file holds their bits as unsigned integers.
bool IsRawBits(DType dtype) {
  return dtype == DType::kBF16 || dtype == DType::kFP8E4M3 || dtype == DType::kFP8E5M2;
}

// The NPY 1.0 header: magic, version, length, then the dict padded with spaces to a multiple
// of 64 bytes (newline last).
std::string NpyHeader(DType dtype, const std::vector<int64_t>& dims) {
  // As numpy writes it: "()", "(5,)", "(3, 37)".
  std::string shape = absl::StrCat("(", absl::StrJoin(dims, ", "), dims.size() == 1 ? ",)" : ")");
  std::string dict = absl::StrCat("{'descr': '", NpyTypeOf(dtype).descr,
                                  "', 'fortran_order': False, 'shape': ", shape, ", }");
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string header = "\x93NUMPY";
  header.push_back('\x01');
  header.push_back('\x00');
  header.push_back(static_cast<char>(dict.size() & 0xFFU));
  header.push_back(static_cast<char>((dict.size() >> 8U) & 0xFFU));
  return header + dict;
}

absl::StatusOr<std::vector<int64_t>> DimsOf(const ProblemSpec& spec, const TensorSpec& tensor,
                                            const Shape& shape) {
  const Bindings bindings = spec.BindingsFor(shape);
  std::vector<int64_t> dims;
  for (const Expr& dim : tensor.shape) {
    KJ_ASSIGN_OR_RETURN(int64_t d, dim.EvaluateInt(bindings));
    dims.push_back(d);
  }
  return dims;
}

absl::Status WriteFile(const fs::path& path, const std::string& head, const std::string& body) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(head.data(), static_cast<std::streamsize>(head.size()));
  out.write(body.data(), static_cast<std::streamsize>(body.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("could not write ", path.string()));
  return absl::OkStatus();
}

// One "in" tensor copied from the device and written as <name>.npy; its manifest entry.
absl::StatusOr<nlohmann::json> WriteTensor(const Request& request, const TensorSpec& tensor,
                                           const void* device_ptr, const fs::path& out) {
  KJ_ASSIGN_OR_RETURN(std::vector<int64_t> dims, DimsOf(request.spec, tensor, request.shape));
  KJ_ASSIGN_OR_RETURN(int64_t count, request.spec.ElementCount(tensor, request.shape));
  std::string bytes(static_cast<size_t>(count) * DTypeSize(tensor.dtype), '\0');
  if (!bytes.empty()) {
    KJ_RETURN_IF_ERROR(SyncStatus(
        cudaMemcpy(bytes.data(), device_ptr, bytes.size(), cudaMemcpyDeviceToHost),
        absl::StrCat("copying input '", tensor.name, "' to the host")));
  }
  const std::string file = tensor.name + ".npy";
  KJ_RETURN_IF_ERROR(WriteFile(out / file, NpyHeader(tensor.dtype, dims), bytes));
  return nlohmann::json{{"name", tensor.name},
                        {"file", file},
                        {"dtype", std::string(DTypeName(tensor.dtype))},
                        {"numpy_dtype", NpyTypeOf(tensor.dtype).name},
                        {"raw_bits", IsRawBits(tensor.dtype)},
                        {"shape", dims},
                        {"bytes", bytes.size()},
                        {"sha256", Sha256Hex(bytes)}};
}

// The judge's own generation call (TensorSet::GenerateInputs), one place.
absl::Status GenerateSet(TensorSet& tensors, DeviceUtilities& utilities, const Request& request,
                         cudaStream_t stream) {
  return tensors.GenerateInputs(utilities, InputSecret{request.key, request.regime}, stream);
}

// Generates the set on the GPU exactly as the judge does (TensorSet::GenerateInputs under the
// shape's input scale) and writes the files; the manifest.
// Creates --out and checks it has room for the .npy files (a bench set can be gigabytes).
absl::Status PrepareOut(const ReproduceArgs& args, const Request& request) {
  std::error_code ec;
  fs::create_directories(args.out, ec);
  if (ec) return absl::InternalError(absl::StrCat("cannot create --out ", args.out, ": ", ec.message()));
  uint64_t needed = 1U << 20U;  // headers and manifest
  for (const TensorSpec& tensor : request.spec.tensors) {
    if (tensor.role != TensorRole::kIn) continue;
    KJ_ASSIGN_OR_RETURN(int64_t count, request.spec.ElementCount(tensor, request.shape));
    needed += static_cast<uint64_t>(count) * DTypeSize(tensor.dtype);
  }
  const fs::space_info space = fs::space(args.out, ec);
  if (!ec && space.available < needed) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the input files need ", needed >> 20U, " MiB but ", args.out, " has ",
        space.available >> 20U, " MiB free; pick another --out"));
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> Generate(const ReproduceArgs& args, const Request& request,
                                        const GpuContext& gpu) {
  KJ_RETURN_IF_ERROR(PrepareOut(args, request));
  const CubinCache cache(args.cache_dir);
  KJ_ASSIGN_OR_RETURN(DeviceUtilities utilities, DeviceUtilities::Create(gpu.info.arch(), cache));
  KJ_ASSIGN_OR_RETURN(Stream stream, Stream::Create());
  KJ_ASSIGN_OR_RETURN(SecretKey guard_key, SecretKey::Draw());
  KJ_ASSIGN_OR_RETURN(TensorSet tensors, TensorSet::AllocateInputs(request.spec, request.shape,
                                                                   GuardPattern(guard_key)));
  {
    const InputScaleScope scale(utilities, request.shape.input_scale);
    KJ_RETURN_IF_ERROR(GenerateSet(tensors, utilities, request, stream.get()));
  }
  const fs::path out(args.out);
  nlohmann::json files = nlohmann::json::array();
  for (const TensorSpec& tensor : request.spec.tensors) {
    if (tensor.role != TensorRole::kIn) continue;
    KJ_ASSIGN_OR_RETURN(nlohmann::json entry,
                        WriteTensor(request, tensor, tensors.pointers().at(tensor.name), out));
    files.push_back(std::move(entry));
  }
  nlohmann::json manifest = {{"problem", request.spec.name},
                             {"shape", request.shape.Label()},
                             {"set", args.set},
                             {"regime", std::string(RegimeName(request.regime))},
                             {"key_hex", args.key_hex},
                             {"input_scale", request.shape.input_scale},
                             {"gpu", gpu.info.name()},
                             {"tensors", files}};
  KJ_RETURN_IF_ERROR(WriteFile(out / "manifest.json", manifest.dump(2) + "\n", ""));
  return manifest;
}

int Main(const ReproduceArgs& args) {
  absl::StatusOr<Request> request = Resolve(args);
  if (!request.ok()) {
    std::cerr << "kjudge-reproduce: " << request.status().message() << "\n";
    return kUsage;
  }
  RunnerOptions options;
  options.device = args.device;
  const GpuContext gpu = DetectGpu(options);
  if (!gpu.has_gpu) {
    std::cerr << "kjudge reproduce needs a CUDA GPU: " << gpu.no_gpu_reason
              << ". The inputs are generated with the judge's own CUDA kernels (bit-exact); run "
                 "this command on a GPU host with the kjudge bundle.\n";
    return kNoGpu;
  }
  absl::StatusOr<nlohmann::json> manifest = Generate(args, *request, gpu);
  if (!manifest.ok()) {
    std::cerr << "kjudge-reproduce: generating " << args.problem << " at " << args.shape
              << " failed: " << manifest.status().message() << "\n";
    return kFailed;
  }
  if (args.json) {
    std::cout << manifest->dump() << "\n";
  } else {
    std::cout << "wrote " << (*manifest)["tensors"].size() << " input tensor(s) of "
              << args.problem << " at " << args.shape << " (regime " << args.regime << ") to "
              << args.out << "/ (manifest.json lists them with their sha256)\n";
  }
  return kWritten;
}

}  // namespace
}  // namespace kjudge::runner

int main(int argc, char** argv) {
  kjudge::runner::ReproduceArgs args;
  CLI::App app{
      "kjudge-reproduce: regenerate one input set of a judged job on this GPU, bit-exact, with\n"
      "the judge's own kernels, as .npy files plus manifest.json (usually run by\n"
      "`kjudge reproduce JOB`, which finds these arguments in the job's result).\n\n"
      "  kjudge-reproduce --problems problems --problem level1/19_ReLU --shape M=3,N=37 \\\n"
      "      --key 3f9a...(64 hex digits) --regime declared --out repro/\n\n"
      "bf16 and fp8 tensors are written as their raw bits (uint16 / uint8; manifest.json names\n"
      "the dtype). Exit codes: 0 written, 1 failed, 2 bad argument, 3 no CUDA GPU here."};
  app.add_option("--problems", args.problems, "the problem catalog folder (holds NAME/problem.toml)")
      ->required();
  app.add_option("--problem", args.problem, "problem name, e.g. level1/19_ReLU")->required();
  app.add_option("--shape", args.shape, "the shape label as the result names it, e.g. \"M=3,N=37\"")
      ->required();
  app.add_option("--key", args.key_hex, "the set's key: 64 hex digits (JobResult.input_keys[i].key_hex)")
      ->required();
  app.add_option("--regime", args.regime,
                 "the set's input regime (input_keys[i].regime): declared, offset, large, ties, zeros, "
                 "positive or negative")
      ->capture_default_str();
  app.add_option("--out", args.out, "folder for the .npy files and manifest.json")->required();
  app.add_option("--set", args.set, "the set's name, recorded in manifest.json (e.g. \"test 2\")");
  app.add_option("--cache-dir", args.cache_dir, "cubin cache folder for the judge's kernels (default: none)");
  app.add_option("--device", args.device, "CUDA device index")->capture_default_str();
  app.add_flag("--json", args.json, "print manifest.json on stdout");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : kjudge::runner::kUsage;
  }
  return kjudge::runner::Main(args);
}
