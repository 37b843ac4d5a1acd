// <cub/thread/thread_operators.cuh> under kjudge (std_headers/README.md): CUDA's own header
// (#include_next), plus the CUB 2.x operator names that CCCL 3 removed: cub::Sum, cub::Max,
// cub::Min, cub::Equality, cub::Inequality, and the CUB_MAX/CUB_MIN/CUB_QUOTIENT_* macros. Kernels written against CUB 2.x (and most that
// LLMs write) say `BlockReduce(tmp).Reduce(v, cub::Max())`; CCCL 3 spells it
// `cuda::maximum<>{}`. These are aliases of the CCCL 3 functors, so cub's specialised fast
// paths for them still apply. Every block/warp reduce and scan includes this header.
#pragma once

#include_next <cub/thread/thread_operators.cuh>

#if defined(CCCL_MAJOR_VERSION) && CCCL_MAJOR_VERSION >= 3
CUB_NAMESPACE_BEGIN
using Sum = ::cuda::std::plus<>;
using Max = ::cuda::maximum<>;
using Min = ::cuda::minimum<>;
using Equality = ::cuda::std::equal_to<>;
using Inequality = ::cuda::std::not_equal_to<>;
CUB_NAMESPACE_END
#endif

#ifndef CUB_MAX
#define CUB_MAX(a, b) (((b) > (a)) ? (b) : (a))
#define CUB_MIN(a, b) (((b) < (a)) ? (b) : (a))
#endif
#ifndef CUB_QUOTIENT_CEILING
#define CUB_QUOTIENT_FLOOR(x, y) ((x) / (y))
#define CUB_QUOTIENT_CEILING(x, y) (((x) + (y) - 1) / (y))
#define CUB_ROUND_UP_NEAREST(x, y) (CUB_QUOTIENT_CEILING(x, y) * (y))
#define CUB_ROUND_DOWN_NEAREST(x, y) (((x) / (y)) * (y))
#endif
