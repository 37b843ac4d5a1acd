// HardwareKey: the identity that library and reference baselines are cached under (server's
// baselines table), computed the same way by every process from a worker's GpuInfo.
//
// Contract: two GpuInfos get the same key exactly when timings taken on one stand for the
// other: GPU name, SM count, memory, NVRTC target, driver, CUDA runtime, NVRTC and cuBLAS
// versions, and the timing method. The method part is "|timing events-calibrated" when the
// runner subtracts a calibrated event overhead (GpuInfo.event_overhead_us > 0) and absent when
// it does not (raw event times, as every runner before the calibration did), so baselines
// measured one way are never compared with candidates measured the other. The overhead's value
// is not in the key: it moves by a few ns between runner starts. A runner with the PyTorch
// oracle adds "|torch <torch.__version__>" (GpuInfo.torch_version): its torch_eager and
// torch_compile baselines depend on the PyTorch build. Compile-only workers get
// "compile-only|<arch>|nvrtc <version>".
#pragma once

#include <string>

#include "kjudge/v1/kjudge.pb.h"

namespace kjudge {

std::string HardwareKey(const v1::GpuInfo& gpu);

}  // namespace kjudge
