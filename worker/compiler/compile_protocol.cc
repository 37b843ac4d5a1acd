#include "worker/compiler/compile_protocol.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "worker/gpu/str_util.h"
#include "common/status_macros.h"

namespace kjudge::compiler {

using runner::Cat;
namespace {

using nlohmann::json;

// A number field must hold a number that fits its type exactly: nlohmann would convert a float
// or a negative number into an unsigned field (undefined behaviour for -1e30).
template <typename T>
bool FitsNumber(const json& value) {
  if constexpr (std::is_same_v<T, double>) {
    return value.is_number();
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (std::is_unsigned_v<T>) return value.is_number_unsigned();
    if (value.is_number_unsigned()) return value.get<uint64_t>() <= uint64_t{INT64_MAX};
    return value.is_number_integer();
  } else {
    return true;  // strings, bools, containers: nlohmann's get<T> checks the kind
  }
}

// Reads a field of the expected kind; a missing field keeps the default, a field of another
// kind is an error (a peer that sends the wrong shape is broken, not "empty").
template <typename T>
absl::Status Get(const json& doc, const char* key, T* out) {
  const auto it = doc.find(key);
  if (it == doc.end()) return absl::OkStatus();
  if (!FitsNumber<T>(*it)) {
    return absl::InvalidArgumentError(Cat("compile protocol field ", key, ": not a number of its type"));
  }
  try {
    *out = it->get<T>();
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(Cat("compile protocol field ", key, ": ", e.what()));
  }
  return absl::OkStatus();
}

// Nesting deeper than any message of the protocol is refused while parsing: nlohmann's CBOR
// reader recurses once per level, so a payload of a million 1-byte nested arrays would
// overflow the stack. So is a container announcing more elements than the payload has bytes
// (nlohmann's DOM builder would throw on a length past max_size()).
constexpr int kMaxNesting = 16;

class BoundedDom : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  BoundedDom(json& result, size_t payload_bytes)
      : json_sax_dom_parser(result, /*allow_exceptions_=*/false), payload_bytes_(payload_bytes) {}
  bool start_object(std::size_t n) { return Enter(n) && json_sax_dom_parser::start_object(n); }
  bool start_array(std::size_t n) { return Enter(n) && json_sax_dom_parser::start_array(n); }
  bool end_object() {
    --depth_;
    return json_sax_dom_parser::end_object();
  }
  bool end_array() {
    --depth_;
    return json_sax_dom_parser::end_array();
  }

 private:
  // n is static_cast<size_t>(-1) for a container of indefinite length.
  bool Enter(std::size_t n) {
    return ++depth_ <= kMaxNesting && (n == static_cast<std::size_t>(-1) || n <= payload_bytes_);
  }
  int depth_ = 0;
  size_t payload_bytes_;
};

absl::StatusOr<json> ParseMap(std::string_view payload) {
  json doc;
  BoundedDom dom(doc, payload.size());
  const bool parsed = json::sax_parse(payload.begin(), payload.end(), &dom, json::input_format_t::cbor,
                                      /*strict=*/true);
  if (!parsed || dom.is_errored() || !doc.is_object()) {
    return absl::InvalidArgumentError(Cat("compile protocol: payload is not a CBOR map (nested at most ",
                                          kMaxNesting, " deep)"));
  }
  return doc;
}

std::string ToCbor(const json& doc) {
  const std::vector<uint8_t> bytes = json::to_cbor(doc);
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace

std::string EncodeRequest(const ProtocolRequest& request) {
  json doc;
  doc["source"] = request.source;
  doc["program_name"] = request.program_name;
  doc["arch"] = request.arch;
  doc["name_expressions"] = request.name_expressions;
  doc["include_dirs"] = request.include_dirs;
  return ToCbor(doc);
}

absl::StatusOr<ProtocolRequest> DecodeRequest(std::string_view payload) {
  absl::StatusOr<json> doc = ParseMap(payload);
  if (!doc.ok()) return doc.status();
  ProtocolRequest request;
  for (absl::Status s : {Get(*doc, "source", &request.source),
                         Get(*doc, "program_name", &request.program_name),
                         Get(*doc, "arch", &request.arch),
                         Get(*doc, "name_expressions", &request.name_expressions),
                         Get(*doc, "include_dirs", &request.include_dirs)}) {
    if (!s.ok()) return s;
  }
  return request;
}

std::string EncodeResponse(const ProtocolResponse& response) {
  json doc;
  doc["success"] = response.success;
  doc["internal_error"] = response.internal_error;
  // The cubin as a CBOR byte string: no UTF-8 assumptions about ELF bytes.
  doc["cubin"] = json::binary(std::vector<uint8_t>(response.cubin.begin(), response.cubin.end()));
  doc["lowered_names"] = response.lowered_names;
  doc["log"] = response.log;
  doc["log_bytes_cut"] = response.log_bytes_cut;
  doc["message"] = response.message;
  doc["limit_hit"] = response.limit_hit;
  doc["sandbox"] = response.sandbox;
  doc["compile_ms"] = response.compile_ms;
  doc["kernels"] = KernelsToJson(response.kernels);
  doc["kernels_cut"] = response.kernels_cut;
  return ToCbor(doc);
}

absl::StatusOr<ProtocolResponse> DecodeResponse(std::string_view payload) {
  absl::StatusOr<json> doc = ParseMap(payload);
  if (!doc.ok()) return doc.status();
  ProtocolResponse response;
  for (absl::Status s : {Get(*doc, "success", &response.success),
                         Get(*doc, "internal_error", &response.internal_error),
                         Get(*doc, "lowered_names", &response.lowered_names),
                         Get(*doc, "log", &response.log),
                         Get(*doc, "log_bytes_cut", &response.log_bytes_cut),
                         Get(*doc, "message", &response.message),
                         Get(*doc, "limit_hit", &response.limit_hit),
                         Get(*doc, "sandbox", &response.sandbox),
                         Get(*doc, "compile_ms", &response.compile_ms),
                         Get(*doc, "kernels_cut", &response.kernels_cut)}) {
    if (!s.ok()) return s;
  }
  response.kernels_cut = std::max<int64_t>(0, response.kernels_cut);
  if (const auto it = doc->find("kernels"); it != doc->end()) {
    std::optional<std::vector<KernelResources>> kernels = KernelsFromJson(*it, &response.kernels_cut);
    if (!kernels) return absl::InvalidArgumentError("compile protocol: kernels is not a list of kernel records");
    response.kernels = *std::move(kernels);
  }
  if (const auto it = doc->find("cubin"); it != doc->end()) {
    if (!it->is_binary()) return absl::InvalidArgumentError("compile protocol: cubin is not bytes");
    const json::binary_t& bytes = it->get_binary();
    response.cubin.assign(bytes.begin(), bytes.end());
  }
  return response;
}

std::string FrameHeader(uint64_t payload_size) {
  std::string header(8, '\0');
  for (int i = 0; i < 8; ++i) header[i] = static_cast<char>((payload_size >> (8 * i)) & 0xff);
  return header;
}

absl::StatusOr<uint64_t> ParseFrameHeader(std::string_view header, uint64_t max_payload) {
  if (header.size() != 8) return absl::InvalidArgumentError("compile protocol: short frame header");
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= uint64_t{static_cast<unsigned char>(header[i])} << (8 * i);
  if (size > max_payload) {
    return absl::ResourceExhaustedError(Cat("compile protocol: frame of ", size,
                                                     " bytes is over the cap of ", max_payload));
  }
  return size;
}

absl::Status WriteFrame(int fd, std::string_view payload) {
  const std::string data = FrameHeader(payload.size()) + std::string(payload);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::UnavailableError(Cat("write: ", std::strerror(errno)));
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

namespace {
absl::Status ReadExactly(int fd, char* out, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, out + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return absl::UnavailableError(Cat("read: ", std::strerror(errno)));
    if (n == 0) return absl::UnavailableError("read: unexpected end of stream");
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}
}  // namespace

absl::StatusOr<std::string> ReadFrame(int fd, uint64_t max_payload) {
  std::string header(8, '\0');
  KJ_RETURN_IF_ERROR(ReadExactly(fd, header.data(), header.size()));
  absl::StatusOr<uint64_t> size = ParseFrameHeader(header, max_payload);
  if (!size.ok()) return size.status();
  std::string payload(*size, '\0');
  KJ_RETURN_IF_ERROR(ReadExactly(fd, payload.data(), payload.size()));
  return payload;
}

}  // namespace kjudge::compiler
