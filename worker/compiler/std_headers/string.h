// <string.h> for NVRTC (kjudge std_headers, README.md): device memcpy, memset, memcmp, strlen.
#include "__kjudge/string_h.h"
