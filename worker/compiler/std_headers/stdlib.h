// <stdlib.h> for NVRTC (kjudge std_headers, README.md): device malloc/free, abs, div... (also std::).
#include "__kjudge/stdlib.h"
