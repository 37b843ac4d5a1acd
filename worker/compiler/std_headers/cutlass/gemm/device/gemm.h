// <cutlass/gemm/device/gemm.h> under kjudge (std_headers/README.md): CUTLASS/CuTe are not installed on the judge,
// so a compile error that says what to use instead (rather than "cannot open source file").
#error "kjudge: <cutlass/gemm/device/gemm.h> is not available: CUTLASS and CuTe are not part of the CUDA toolkit that kjudge compiles with (NVRTC, device code only, with the CUDA toolkit's headers). Use tensor cores directly: WMMA (<mma.h>), or inline PTX (mma.sync, wgmma.mma_async on sm_90a) with cuda::pipeline / cuda::memcpy_async (<cuda/pipeline>) for the copies."
