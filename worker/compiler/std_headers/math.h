// <math.h> for NVRTC (kjudge std_headers, README.md): the CUDA math library with the C/C++
// macros (INFINITY, NAN, HUGE_VALF, M_PI...) and the std:: overloads. Device code only.
#include "__kjudge/math.h"
