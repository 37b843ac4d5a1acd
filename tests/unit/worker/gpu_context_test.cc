// GpuContext's pure parts (no GPU needed): the arch name and the CUDA_VISIBLE_DEVICES value that
// gives the PyTorch oracle the judge's device.
#include "worker/judge/gpu_context.h"

#include <string>

#include <gtest/gtest.h>

namespace kjudge::runner {
namespace {

TEST(GpuContext, ArchAddsTheArchSpecificSuffixFromHopperOn) {
  EXPECT_EQ(ArchFor(8, 0), "sm_80");
  EXPECT_EQ(ArchFor(9, 0), "sm_90a");
}

TEST(GpuContext, VisibleDeviceIsTheUuidInNvidiaSmisForm) {
  cudaUUID_t uuid{};
  for (int i = 0; i < 16; ++i) uuid.bytes[i] = static_cast<char>(i * 17);  // 00 11 22 ... ff
  EXPECT_EQ(CudaVisibleDeviceOf(uuid), "GPU-00112233-4455-6677-8899-aabbccddeeff");
  // Bytes with the high bit set (char is signed here) print as two hex digits, not sign-extended.
  for (int i = 0; i < 16; ++i) uuid.bytes[i] = static_cast<char>(0xf0 | i);
  EXPECT_EQ(CudaVisibleDeviceOf(uuid), "GPU-f0f1f2f3-f4f5-f6f7-f8f9-fafbfcfdfeff");
}

}  // namespace
}  // namespace kjudge::runner
