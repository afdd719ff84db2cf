// Checks shared by the runtime API test programs: a failing CUDA call or a
// wrong result prints where and why on stderr; the program then exits 1 (at
// once for a call, at the end for a result, so that one run shows all wrong
// results).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define RT_CHECK(call)                                                                                    \
  do {                                                                                                    \
    const cudaError_t rt_err_ = (call);                                                                   \
    if (rt_err_ != cudaSuccess) {                                                                         \
      std::fprintf(stderr, "%s:%d: %s returned %s (%s)\n", __FILE__, __LINE__, #call,                     \
                   cudaGetErrorName(rt_err_), cudaGetErrorString(rt_err_));                               \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)

// The call must return `want` (an error the program provokes on purpose).
#define RT_EXPECT_ERROR(call, want)                                                                       \
  do {                                                                                                    \
    const cudaError_t rt_err_ = (call);                                                                   \
    if (rt_err_ != (want)) {                                                                              \
      std::fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call,             \
                   cudaGetErrorName(rt_err_), cudaGetErrorName(want));                                    \
      rt_failures++;                                                                                      \
    }                                                                                                     \
  } while (0)

#define RT_EXPECT(cond)                                                                                   \
  do {                                                                                                    \
    if (!(cond)) {                                                                                        \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                       \
      rt_failures++;                                                                                      \
    }                                                                                                     \
  } while (0)

// The number of wrong results so far (one counter for the whole program).
inline int rt_failures = 0;

// Prints "NAME: ok" or "NAME: FAILED (k checks)" and gives main's exit status.
inline int rt_finish(const char* name) {
  if (rt_failures == 0) {
    std::printf("%s: ok\n", name);
    return 0;
  }
  std::printf("%s: FAILED (%d checks)\n", name, rt_failures);
  return 1;
}
