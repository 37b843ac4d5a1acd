// <string.h> for NVRTC (kjudge std_headers, README.md): device memcpy, memset, memcmp, memmove, memchr.
#include "__kjudge/string_h.h"
