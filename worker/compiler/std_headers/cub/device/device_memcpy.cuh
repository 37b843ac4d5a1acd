// <cub/device/device_memcpy.cuh> under kjudge (std_headers/README.md): cub::DeviceMemcpy is launched from the host,
// which kjudge submissions do not have, so a compile error that names the device-side cub to use.
#error "kjudge: <cub/device/device_memcpy.cuh> (cub::DeviceMemcpy) is host-side cub: it launches kernels from the host, and kjudge compiles device code only (NVRTC) and launches your kernels from the launch plan. Inside your kernel use a plain copy kernel, or cub::BlockLoad/BlockStore; <cub/cub.cuh> gives all block-, warp- and thread-level cub."
