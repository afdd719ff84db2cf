// estimate_pi's CPU reference, shared by the workload's host set-up
// (estimate_pi.cpp) and its CUDA-program twin: the hit count of every CTA,
// from each thread's generator as epp_initRNG leaves it and
// epp_computeValue's draws and test.
#pragma once

#include <cmath>
#include <vector>

#include "../common/xorwow_jump.h"

namespace epp {

inline std::vector<unsigned> reference_counts(unsigned seed, unsigned grid, unsigned block, unsigned num_sims,
                                              const std::vector<unsigned>& jump) {
  const unsigned total = grid * block;
  std::vector<unsigned> counts(grid, 0);
  for (unsigned tid = 0; tid < total; ++tid) {
    unsigned s[5], d;
    xorwow::host_init(seed, tid, jump, s, d);
    unsigned inside = 0;
    for (unsigned i = tid; i < num_sims; i += total) {
      const float x = xorwow::to_unit(xorwow::next(s, d));
      const float y = xorwow::to_unit(xorwow::next(s, d));
      const float y2 = y * y;
      if (std::fma(x, x, y2) < 1.0f) ++inside;
    }
    counts[tid / block] += inside;
  }
  return counts;
}

}  // namespace epp
