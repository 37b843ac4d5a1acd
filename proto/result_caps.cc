#include "proto/result_caps.h"

#include "absl/strings/str_cat.h"

namespace kjudge {
namespace {

// The largest n <= max_bytes such that text[n] does not continue a UTF-8 sequence.
size_t Utf8Boundary(std::string_view text, size_t max_bytes) {
  size_t n = max_bytes;
  // At most 3 continuation bytes follow a lead byte.
  for (int i = 0; i < 3 && n > 0 && n < text.size() &&
                  (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80;
       ++i) {
    --n;
  }
  return n;
}

// How many bytes of the text to keep so that they and the note fit in max_bytes.
size_t KeepBytes(std::string_view text, size_t max_bytes) {
  return Utf8Boundary(text, max_bytes > kCapNoteBytes ? max_bytes - kCapNoteBytes : 0);
}

}  // namespace

std::string CapText(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  const size_t keep = KeepBytes(text, max_bytes);
  std::string out(text.substr(0, keep));
  absl::StrAppend(&out, " ... [", text.size() - keep, " bytes cut]");
  return out;
}

uint64_t CapTextInPlace(std::string* text, size_t max_bytes) {
  if (text->size() <= max_bytes) return 0;
  const size_t keep = KeepBytes(*text, max_bytes);
  const uint64_t cut = text->size() - keep;
  text->resize(keep);
  absl::StrAppend(text, " ... [", cut, " bytes cut]");
  return cut;
}

uint64_t CapResultText(v1::JobResult* result, const ResultTextCaps& caps) {
  uint64_t cut = 0;
  cut += CapTextInPlace(result->mutable_message(), caps.message);
  cut += CapTextInPlace(result->mutable_compile_log(), caps.compile_log);
  cut += CapTextInPlace(result->mutable_cuda_error(), caps.cuda_error);
  auto* tests = result->mutable_tests();
  if (static_cast<size_t>(tests->size()) > caps.tests) {
    for (int i = static_cast<int>(caps.tests); i < tests->size(); ++i) cut += (*tests)[i].ByteSizeLong();
    tests->DeleteSubrange(static_cast<int>(caps.tests), tests->size() - static_cast<int>(caps.tests));
  }
  for (v1::TestOutcome& test : *tests) {
    cut += CapTextInPlace(test.mutable_detail(), caps.test_detail);
    cut += CapTextInPlace(test.mutable_shape(), caps.test_shape);
    auto* mismatches = test.mutable_first_mismatches();
    if (static_cast<size_t>(mismatches->size()) > caps.mismatches_per_test) {
      for (int i = static_cast<int>(caps.mismatches_per_test); i < mismatches->size(); ++i) {
        cut += (*mismatches)[i].ByteSizeLong();
      }
      mismatches->DeleteSubrange(static_cast<int>(caps.mismatches_per_test),
                                 mismatches->size() - static_cast<int>(caps.mismatches_per_test));
    }
    for (v1::Mismatch& m : *mismatches) cut += CapTextInPlace(m.mutable_tensor(), caps.mismatch_tensor);
  }
  auto* flags = result->mutable_flags();
  if (static_cast<size_t>(flags->size()) > caps.flags) {
    for (int i = static_cast<int>(caps.flags); i < flags->size(); ++i) cut += (*flags)[i].size();
    flags->DeleteSubrange(static_cast<int>(caps.flags), flags->size() - static_cast<int>(caps.flags));
  }
  for (std::string& flag : *flags) cut += CapTextInPlace(&flag, caps.flag);
  auto* kernels = result->mutable_kernels();
  if (static_cast<size_t>(kernels->size()) > caps.kernels) {
    const int keep = static_cast<int>(caps.kernels);
    for (int i = keep; i < kernels->size(); ++i) cut += (*kernels)[i].ByteSizeLong();
    result->set_kernels_cut(result->kernels_cut() + (kernels->size() - keep));
    kernels->DeleteSubrange(keep, kernels->size() - keep);
  }
  for (v1::KernelResources& kernel : *kernels) {
    cut += CapTextInPlace(kernel.mutable_name(), caps.kernel_name);
    for (std::string& name : *kernel.mutable_plan_names()) cut += CapTextInPlace(&name, caps.kernel_name);
  }
  const uint64_t output_cut = CapTextInPlace(result->mutable_candidate_output(), caps.candidate_output);
  if (output_cut > 0) {
    result->set_candidate_output_cut(result->candidate_output_cut() + static_cast<int64_t>(output_cut));
  }
  return cut + output_cut;
}

}  // namespace kjudge
