// Host helpers shared by the workload programs (tests/cuda/workloads/*.cu):
// complete CUDA programs that repeat a workload's host steps through the CUDA
// runtime, so that `tlmgpu exec` of the program can be compared with
// `tlmgpu run` of the workload. Plain C++ and CUDA runtime calls only: the
// programs must not depend on the simulator.
#pragma once

#include <cuda_runtime.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

// Every CUDA call is checked: a failing one ends the program with status 1
// and says which call failed and why.
#define CUDA_CHECK(call)                                                                                       \
  do {                                                                                                         \
    const cudaError_t cuda_check_status_ = (call);                                                             \
    if (cuda_check_status_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(cuda_check_status_)); \
      std::exit(1);                                                                                            \
    }                                                                                                          \
  } while (0)

// After a <<<...>>> launch: the launch's own error, then the kernel's.
#define CUDA_CHECK_LAUNCH()                \
  do {                                     \
    CUDA_CHECK(cudaGetLastError());        \
    CUDA_CHECK(cudaDeviceSynchronize());   \
  } while (0)

namespace program {

enum class Size { Small, Default, Paper };

struct Options {
  Size size = Size::Default;  // the workloads' defaults
  uint64_t seed = 1;
};

// --size small|default|paper, --seed N; anything else is a usage error (status 2).
inline Options parse_options(int argc, char** argv) {
  Options o;
  auto usage = [&](const std::string& why) {
    std::fprintf(stderr, "%s: %s\nusage: %s [--size small|default|paper] [--seed N]\n", argv[0], why.c_str(), argv[0]);
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc || (arg != "--size" && arg != "--seed")) usage("unexpected argument '" + arg + "'");
    const std::string value = argv[++i];
    if (arg == "--size") {
      if (value == "small") o.size = Size::Small;
      else if (value == "default") o.size = Size::Default;
      else if (value == "paper") o.size = Size::Paper;
      else usage("--size must be small, default or paper, not '" + value + "'");
    } else {
      char* end = nullptr;
      errno = 0;
      o.seed = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || value[0] == '-' || *end != '\0' || errno != 0) usage("--seed needs an unsigned integer");
    }
  }
  return o;
}

// SplitMix64, the workloads' input generator (workloads/common/
// workload_support.h): the same seed gives the same inputs.
class InputRng {
 public:
  explicit InputRng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound).
  uint32_t below(uint32_t bound) { return uint32_t((next() >> 32) * bound >> 32); }
  // Uniform in [lo, hi).
  float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 40) / float(1ull << 24); }

 private:
  uint64_t state_;
};

struct Result {
  bool verified = false;
  std::string detail;  // the first mismatch, or a short summary
};

template <typename T>
Result compare_exact(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  if (got.size() != want.size())
    return {false, what + ": size " + std::to_string(got.size()) + " != " + std::to_string(want.size())};
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      std::ostringstream os;
      os << what << "[" << i << "] = " << +got[i] << ", expected " << +want[i];
      return {false, os.str()};
    }
  }
  return {true, what + ": " + std::to_string(got.size()) + " values match"};
}

// |got - want| <= abs_tol + rel_tol * |want|, as the workloads compare floats.
template <typename T>
Result compare_close(const std::vector<T>& got, const std::vector<T>& want, double rel_tol, const std::string& what,
                     double abs_tol = 1e-6) {
  if (got.size() != want.size()) return {false, what + ": size mismatch"};
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (!(std::fabs(g - w) <= abs_tol + rel_tol * std::fabs(w))) {
      std::ostringstream os;
      os.precision(9);
      os << what << "[" << i << "] = " << g << ", expected " << w;
      return {false, os.str()};
    }
  }
  return {true, what + ": " + std::to_string(got.size()) + " values within tolerance"};
}

// The program's one line of outcome and its exit status. The tests look for
// "<name>: verified".
inline int report(const char* name, const Result& r) {
  if (r.verified) {
    std::printf("%s: verified: %s\n", name, r.detail.c_str());
    return 0;
  }
  std::printf("%s: MISMATCH: %s\n", name, r.detail.c_str());
  return 1;
}

// cudaMalloc of `count` elements.
template <typename T>
T* device_alloc(size_t count) {
  void* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
  return static_cast<T*>(p);
}

// cudaMalloc + cudaMemcpy of a host vector, in that order (GpuDevice::upload).
template <typename T>
T* upload(const std::vector<T>& host) {
  T* d = device_alloc<T>(host.size());
  CUDA_CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
std::vector<T> download(const T* device, size_t count) {
  std::vector<T> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// cudaFree of each, left to right (the order the workloads free in).
inline void free_one(void* device) { CUDA_CHECK(cudaFree(device)); }
template <typename... P>
void free_all(P*... device) {
  (free_one(device), ...);
}

}  // namespace program
