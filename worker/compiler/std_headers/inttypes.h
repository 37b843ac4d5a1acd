// <inttypes.h> for NVRTC (kjudge std_headers, README.md): <cstdint> plus PRId64 & co. for device printf.
#include "__kjudge/inttypes.h"
