// <cub/device/device_radix_sort.cuh> under kjudge (std_headers/README.md): cub::DeviceRadixSort is launched from the host,
// which kjudge submissions do not have, so a compile error that names the device-side cub to use.
#error "kjudge: <cub/device/device_radix_sort.cuh> (cub::DeviceRadixSort) is host-side cub: it launches kernels from the host, and kjudge compiles device code only (NVRTC) and launches your kernels from the launch plan. Inside your kernel use cub::BlockRadixSort (<cub/block/block_radix_sort.cuh>); <cub/cub.cuh> gives all block-, warp- and thread-level cub."
