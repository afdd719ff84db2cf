// asian_option's option record and CPU reference, shared by the kernels
// (asian_option.cu), the workload's host set-up (asian_option.cpp) and its
// CUDA-program twin.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "../common/xorwow_jump.h"

namespace saop {

// The option as the kernels read it from global memory (the SDK's AsianOption).
struct Option {
  float spot, strike, r, sigma, tenor, dt;
  int type;  // 0: call, 1: put
  float pad;
};

// The SDK sample's option: a call on arithmetic daily averages over 1/3 year.
inline Option default_option() { return {40.0f, 35.0f, 0.03f, 0.20f, float(1.0 / 3.0), float(1.0 / 261), 0, 0.0f}; }

inline unsigned timesteps(const Option& o) { return unsigned(o.tenor / o.dt); }  // 87

// Box-Muller on the host, as saop_normal on the device (whose fast
// intrinsics are approximations, hence the tolerance of the check).
struct HostNormal {
  unsigned s[5], d;
  bool has_spare = false;
  float spare = 0.0f;
  float operator()() {
    if (has_spare) {
      has_spare = false;
      return spare;
    }
    const float u1 = xorwow::to_open_unit(xorwow::next(s, d));
    const float u2 = xorwow::to_unit(xorwow::next(s, d));
    const float rad = std::sqrt(-2.0f * std::log(u1));
    const double angle = 3.14159265358979323846 * double(2.0f * u2);
    spare = rad * float(std::sin(angle));
    has_spare = true;
    return rad * float(std::cos(angle));
  }
};

// Every CTA's sum of payoffs: each thread's paths as saop_generatePaths
// makes them, averaged and paid off as saop_computeValue, the CTA's tree.
inline std::vector<float> reference_sums(unsigned seed, unsigned grid, unsigned block, unsigned num_sims,
                                         const Option& o, const std::vector<unsigned>& jump) {
  const unsigned total = grid * block, steps = timesteps(o);
  const float drift = (o.r - 0.5f * o.sigma * o.sigma) * o.dt;
  const float diffusion = o.sigma * std::sqrt(o.dt);
  std::vector<float> sums(grid), partial(block);
  for (unsigned cta = 0; cta < grid; ++cta) {
    for (unsigned t = 0; t < block; ++t) {
      const unsigned tid = cta * block + t;
      HostNormal normal;
      xorwow::host_init(seed, tid, jump, normal.s, normal.d);
      float sum = 0.0f;
      for (unsigned i = tid; i < num_sims; i += total) {
        float s = 1.0f, avg = 0.0f;
        for (unsigned k = 0; k < steps; ++k) {
          s *= std::exp(drift + diffusion * normal());
          avg += s;
        }
        avg = avg * o.spot / float(steps);
        float payoff = avg - o.strike;
        if (o.type == 1) payoff = -payoff;
        sum += std::max(0.0f, payoff);
      }
      partial[t] = sum;
    }
    for (unsigned half = block / 2; half > 0; half /= 2)
      for (unsigned t = 0; t < half; ++t) partial[t] += partial[t + half];
    sums[cta] = partial[0];
  }
  return sums;
}

}  // namespace saop
