// <c10/util/Half.h> under kjudge (std_headers/README.md): a host-only header, so a compile error that
// says what to do instead. kjudge compiles device code only (NVRTC) and launches the kernels
// itself from the submission's launch plan.
#error "kjudge: <c10/util/Half.h> is a host-only header. kjudge compiles device code only (NVRTC; there is no host code: kjudge launches your kernels from the launch plan). Remove the include; kjudge takes __global__ kernels plus a launch plan instead of a PyTorch extension's host wrapper: drop the wrapper and the include, take plain pointers (float*, __half* from <cuda_fp16.h>, __nv_bfloat16* from <cuda_bf16.h>) and write the launches in the plan (problems/README.md)."
