// HardwareKey (proto/hardware_key.h): what makes two workers' timings comparable.
#include "proto/hardware_key.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

v1::GpuInfo H200() {
  v1::GpuInfo g;
  g.set_name("NVIDIA H200");
  g.set_sm_count(132);
  g.set_memory_bytes(150'000'000'000);
  g.set_arch("sm_90a");
  g.set_driver_version("13.0");
  g.set_runtime_version("13.0");
  g.set_nvrtc_version("13.0");
  g.set_cublas_version("13.1.0");
  return g;
}

TEST(HardwareKey, NamesTheGpuAndTheSoftware) {
  EXPECT_EQ(HardwareKey(H200()),
            "NVIDIA H200|sm 132|mem 150000000000|sm_90a|driver 13.0|cudart 13.0|nvrtc "
            "13.0|cublas 13.1.0");
}

TEST(HardwareKey, CalibratedTimingIsItsOwnKeyWhateverTheOverhead) {
  v1::GpuInfo a = H200();
  a.set_event_overhead_us(2.43);
  v1::GpuInfo b = H200();
  b.set_event_overhead_us(2.46);
  EXPECT_EQ(HardwareKey(a), HardwareKey(b));
  EXPECT_NE(HardwareKey(a), HardwareKey(H200()));
  EXPECT_TRUE(HardwareKey(a).ends_with("|timing events-calibrated"));
}

TEST(HardwareKey, AnyVersionChangeIsANewKey) {
  v1::GpuInfo g = H200();
  g.set_cublas_version("13.2.0");
  EXPECT_NE(HardwareKey(g), HardwareKey(H200()));
  g = H200();
  g.set_sm_count(114);
  EXPECT_NE(HardwareKey(g), HardwareKey(H200()));
}

TEST(HardwareKey, ThePyTorchOracleIsPartOfTheKey) {
  v1::GpuInfo g = H200();
  g.set_event_overhead_us(2.4);
  g.set_torch_version("2.11.0+cu130");
  EXPECT_EQ(HardwareKey(g),
            "NVIDIA H200|sm 132|mem 150000000000|sm_90a|driver 13.0|cudart 13.0|nvrtc "
            "13.0|cublas 13.1.0|timing events-calibrated|torch 2.11.0+cu130");
  v1::GpuInfo other = g;
  other.set_torch_version("2.10.0");
  EXPECT_NE(HardwareKey(g), HardwareKey(other));
}

TEST(HardwareKey, CompileOnlyWorkers) {
  v1::GpuInfo g;
  g.set_compile_only(true);
  g.set_arch("sm_90a");
  g.set_nvrtc_version("13.0");
  EXPECT_EQ(HardwareKey(g), "compile-only|sm_90a|nvrtc 13.0");
}

}  // namespace
}  // namespace kjudge
