// <stdio.h> for NVRTC (kjudge std_headers, README.md): device printf only.
#include "__kjudge/stdio.h"
