// What the parent decodes from kjudge-compiler (compile_protocol.h): bytes from a process that ran
// NVRTC on hostile input, so every malformed frame is an error value, never a crash, an
// unbounded allocation or a stack overflow. CUDA-free: also runs in the ASan/UBSan build. < 1 s.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "worker/compiler/compile_protocol.h"

namespace kjudge::compiler {
namespace {

using nlohmann::json;

std::string Cbor(const json& doc) {
  const std::vector<uint8_t> bytes = json::to_cbor(doc);
  return {bytes.begin(), bytes.end()};
}

TEST(CompileProtocolHostile, NotAMapIsAnError) {
  for (const std::string& payload : {std::string(), std::string("\xff"), Cbor(json::array({1, 2})),
                                     Cbor(json("text")), std::string("\xa1\x61", 2)}) {
    EXPECT_FALSE(DecodeResponse(payload).ok()) << payload.size();
    EXPECT_FALSE(DecodeRequest(payload).ok()) << payload.size();
  }
}

TEST(CompileProtocolHostile, FieldsOfTheWrongKindAreErrors) {
  for (const json& doc : {json{{"success", "yes"}}, json{{"log", 5}}, json{{"cubin", "text, not bytes"}},
                          json{{"lowered_names", json::array({1})}}, json{{"log_bytes_cut", -1.5}},
                          json{{"kernels", "none"}}, json{{"kernels", json::array({7})}},
                          json{{"compile_ms", json::object()}}, json{{"log_bytes_cut", -1}},
                          json{{"log_bytes_cut", -1e30}}, json{{"kernels_cut", 1.0e300}},
                          json{{"kernels_cut", UINT64_MAX}}}) {
    EXPECT_FALSE(DecodeResponse(Cbor(doc)).ok()) << doc.dump();
  }
  EXPECT_FALSE(DecodeRequest(Cbor(json{{"include_dirs", "/etc"}})).ok());
}

TEST(CompileProtocolHostile, ANegativeCutCountIsZero) {
  absl::StatusOr<ProtocolResponse> r = DecodeResponse(Cbor(json{{"kernels_cut", -5}}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kernels_cut, 0);
}

// Deeply nested arrays (one byte each level): a recursive decoder would overflow its stack.
TEST(CompileProtocolHostile, DeepNestingIsAnErrorNotAStackOverflow) {
  for (const size_t depth : {size_t{1000}, size_t{1} << 20}) {
    std::string payload = "\xa1\x63log";  // {"log": [[[[...]]]]}
    payload += std::string(depth, '\x81');
    payload += '\x00';
    EXPECT_FALSE(DecodeResponse(payload).ok()) << depth;
    EXPECT_FALSE(DecodeRequest(payload).ok()) << depth;  // even in a field it does not read
  }
}

// A CBOR header may announce a string or an array far longer than the payload: no allocation of
// the announced size, no read past the end.
TEST(CompileProtocolHostile, LyingLengthsInsideThePayloadAreErrors) {
  const std::string huge_string("\xa1\x63log\x7b\x00\x00\x00\x10\x00\x00\x00\x00", 13);  // 2^36-byte text
  const std::string huge_array("\xa1\x63log\x9b\x00\x00\x00\x10\x00\x00\x00\x00", 13);   // 2^36 items
  const std::string huge_map("\xbb\x00\x00\x00\x10\x00\x00\x00\x00", 9);
  // Past max_size(): nlohmann's DOM builder throws on it (found by fuzz_compile_protocol).
  const std::string past_max_size("\xa1\x63log\x9b\x5f\x63\x6f\x6d\x70\x69\x6c\x65", 13);
  for (const std::string& payload : {huge_string, huge_array, huge_map, past_max_size}) {
    EXPECT_FALSE(DecodeResponse(payload).ok());
  }
}

TEST(CompileProtocolHostile, FrameHeaderOverTheCapIsRefused) {
  EXPECT_EQ(ParseFrameHeader(FrameHeader(1001), 1000).status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(*ParseFrameHeader(FrameHeader(1000), 1000), 1000u);
  EXPECT_FALSE(ParseFrameHeader("\x01\x02", 1000).ok());
  EXPECT_FALSE(ParseFrameHeader(std::string(8, '\xff'), UINT64_MAX - 1).ok());
}

TEST(CompileProtocolHostile, AWellFormedResponseRoundTrips) {
  ProtocolResponse response;
  response.success = true;
  response.cubin = std::string("\x7f" "ELF\x00\xff", 6);
  response.log = std::string("a\x00\xc3", 3);
  response.lowered_names = {{"k", "_Z1kv"}};
  response.kernels_cut = 3;
  absl::StatusOr<ProtocolResponse> back = DecodeResponse(EncodeResponse(response));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->cubin, response.cubin);
  EXPECT_EQ(back->log, response.log);
  EXPECT_EQ(back->lowered_names, response.lowered_names);
  EXPECT_EQ(back->kernels_cut, 3);
}

}  // namespace
}  // namespace kjudge::compiler
