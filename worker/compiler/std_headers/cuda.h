// <cuda.h> under kjudge (std_headers/README.md): the CUDA driver API is host code (cuInit,
// cuLaunchKernel...), which NVRTC refuses to compile ("host functions are not allowed in JIT
// mode"), and kjudge submissions have no host code. Kernels that include <cuda.h> use it for
// CUDA_VERSION and the runtime's device-side names, so this gives those: CUDA_VERSION and
// <cuda_runtime.h> (NVRTC's own).
#pragma once

#include <cuda_runtime.h>

#ifndef CUDA_VERSION
#define CUDA_VERSION (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)
#endif
