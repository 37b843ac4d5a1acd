// kjudge std_headers internals: the body of <cassert> and <assert.h>. No include guard, on
// purpose: as in C, each inclusion redefines assert() by whether NDEBUG is defined there.
//
// Contract: NVRTC already defines a device assert() (a failed one prints the expression and
// traps, so the job ends as a runtime error); this adds NDEBUG support and static_assert-free
// C++ semantics. With NDEBUG defined, assert(e) does not evaluate e.
#undef assert
#ifdef NDEBUG
#define assert(e) (static_cast<void>(0))
#else
#define assert(e) \
  ((e) ? static_cast<void>(0) : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif
