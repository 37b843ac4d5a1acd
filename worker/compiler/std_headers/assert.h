// <assert.h> for NVRTC (kjudge std_headers, README.md): device assert (NDEBUG respected).
#include "__kjudge/config.h"
#include "__kjudge/assert.h"
