// <cublas_v2.h> under kjudge (std_headers/README.md): a host-only header, so a compile error that
// says what to do instead. kjudge compiles device code only (NVRTC) and launches the kernels
// itself from the submission's launch plan.
#error "kjudge: <cublas_v2.h> is a host-only header. kjudge compiles device code only (NVRTC; there is no host code: kjudge launches your kernels from the launch plan). Remove the include; kjudge times your own kernels and measures the library baselines itself: call no host library; write the kernel (tensor cores: WMMA from <mma.h>)."
