// Shared pieces of workload set-ups: a deterministic input generator and
// result comparison with a readable first mismatch.
#pragma once

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "workloads/workload.h"

namespace tlmgpu::workloads {

/// SplitMix64: the same seed gives the same inputs on every host.
class InputRng {
 public:
  explicit InputRng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound).
  uint32_t below(uint32_t bound) { return uint32_t((next() >> 32) * bound >> 32); }
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) / float(1ull << 24); }

 private:
  uint64_t state_;
};

/// Exact comparison of integer results.
template <typename T>
WorkloadResult compare_exact(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  if (got.size() != want.size()) return {false, what + ": size " + std::to_string(got.size()) + " != " + std::to_string(want.size())};
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      std::ostringstream os;
      os << what << "[" << i << "] = " << +got[i] << ", expected " << +want[i];
      return {false, os.str()};
    }
  }
  return {true, what + ": " + std::to_string(got.size()) + " values match"};
}

/// Float comparison with a relative tolerance (device and host may fuse or
/// order operations differently).
template <typename T>
WorkloadResult compare_close(const std::vector<T>& got, const std::vector<T>& want, double rel_tol,
                             const std::string& what, double abs_tol = 1e-6) {
  if (got.size() != want.size()) return {false, what + ": size mismatch"};
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i];
    if (!(std::fabs(g - w) <= abs_tol + rel_tol * std::fabs(w))) {
      std::ostringstream os;
      os.precision(9);
      os << what << "[" << i << "] = " << g << ", expected " << w;
      return {false, os.str()};
    }
  }
  return {true, what + ": " + std::to_string(got.size()) + " values within tolerance"};
}

}  // namespace tlmgpu::workloads
