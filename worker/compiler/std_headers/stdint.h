// <stdint.h> for NVRTC (kjudge std_headers, README.md): int32_t, uint64_t, INT32_MAX... (also std::).
#include "__kjudge/stdint.h"
