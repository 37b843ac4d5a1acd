// <cub/util_allocator.cuh> under kjudge (std_headers/README.md): a host-side caching allocator.
#error "kjudge: <cub/util_allocator.cuh> (cub::CachingDeviceAllocator) is host-side cub, and kjudge compiles device code only (NVRTC). Declare temporary storage as scratch in the launch plan instead."
