// kjudge std_headers internals: the body of <cinttypes> and <inttypes.h>: <cstdint> plus the
// printf format macros (PRId64...), for device printf. Under NVRTC libcu++ makes int64_t a
// long long, so the 64-bit ones are "ll".
#ifndef KJUDGE_STD_HEADERS_INTTYPES_H
#define KJUDGE_STD_HEADERS_INTTYPES_H

#include "stdint.h"

#ifndef PRId64
#define PRId8 "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRId64 "lld"
#define PRIi8 "i"
#define PRIi16 "i"
#define PRIi32 "i"
#define PRIi64 "lli"
#define PRIu8 "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIu64 "llu"
#define PRIx8 "x"
#define PRIx16 "x"
#define PRIx32 "x"
#define PRIx64 "llx"
#define PRIX8 "X"
#define PRIX16 "X"
#define PRIX32 "X"
#define PRIX64 "llX"
#define PRIdPTR "lld"
#define PRIuPTR "llu"
#define PRIxPTR "llx"
#endif

#endif  // KJUDGE_STD_HEADERS_INTTYPES_H
