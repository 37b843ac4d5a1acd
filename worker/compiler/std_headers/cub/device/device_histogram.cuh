// <cub/device/device_histogram.cuh> under kjudge (std_headers/README.md): cub::DeviceHistogram is launched from the host,
// which kjudge submissions do not have, so a compile error that names the device-side cub to use.
#error "kjudge: <cub/device/device_histogram.cuh> (cub::DeviceHistogram) is host-side cub: it launches kernels from the host, and kjudge compiles device code only (NVRTC) and launches your kernels from the launch plan. Inside your kernel use cub::BlockHistogram (<cub/block/block_histogram.cuh>); <cub/cub.cuh> gives all block-, warp- and thread-level cub."
