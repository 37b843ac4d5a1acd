// <nvToolsExt.h> under kjudge (std_headers/README.md): a host-only header, so a compile error that
// says what to do instead. kjudge compiles device code only (NVRTC) and launches the kernels
// itself from the submission's launch plan.
#error "kjudge: <nvToolsExt.h> is a host-only header. kjudge compiles device code only (NVRTC; there is no host code: kjudge launches your kernels from the launch plan). Remove the include; no profiling ranges: kjudge times the plan itself."
