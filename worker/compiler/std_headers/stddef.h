// <stddef.h> for NVRTC (kjudge std_headers, README.md): size_t, ptrdiff_t, NULL, offsetof.
#include "__kjudge/config.h"
#include <cuda/std/cstddef>
#ifndef NULL
#define NULL 0
#endif
