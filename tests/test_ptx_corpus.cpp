// The PTX-family corpus (tests/ptx/corpus/*.cu -> .ptx, nvcc 13 -arch=sm_75
// -O3): every file parses and decodes (what `tlmgpu check-ptx` does), and the
// integer-family kernel's 47 results per thread equal a CPU reference.
// docs/PTX_SUPPORT.md lists which instruction families each file covers.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/exec/kernel_context.h"
#include "model/ptx/ptx_parser.h"
#include "platform/gpu_device.h"
#include "platform/timing_gpu.h"

namespace tlmgpu {
namespace {

namespace fs = std::filesystem;
using platform::GpuDevice;
using platform::KernelArgs;

const fs::path kCorpus = fs::path(TLMGPU_SOURCE_DIR) / "tests" / "ptx" / "corpus";

std::string read_file(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(PtxCorpus, EveryFileHasItsSourceAndParses) {
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".ptx") continue;
    ++files;
    SCOPED_TRACE(entry.path().filename().string());
    fs::path source = entry.path();
    source.replace_extension(".cu");
    EXPECT_TRUE(fs::exists(source)) << "the corpus keeps the CUDA source beside its PTX";
    try {
      const ptx::Module m = ptx::parse_ptx(read_file(entry.path()), entry.path().filename().string());
      EXPECT_FALSE(m.functions.empty());
    } catch (const ptx::PtxError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GE(files, 5u);
}

// ---------------------------------------------------------------- integer

uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  const uint64_t both = (uint64_t(y) << 32) | x;
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) r |= uint32_t((both >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}

int32_t sign_extend(uint32_t v, unsigned bits) {
  const uint32_t m = 1u << (bits - 1);
  v &= (bits == 32 ? ~0u : (1u << bits) - 1);
  return int32_t((v ^ m) - m);
}

int64_t dot4(uint32_t a, uint32_t b, bool sa, bool sb) {
  int64_t s = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const int64_t ea = sa ? sign_extend(a >> (8 * i), 8) : int64_t((a >> (8 * i)) & 0xff);
    const int64_t eb = sb ? sign_extend(b >> (8 * i), 8) : int64_t((b >> (8 * i)) & 0xff);
    s += ea * eb;
  }
  return s;
}

int64_t dot2(uint32_t a, uint32_t b, bool hi, bool sa, bool sb) {
  int64_t s = 0;
  for (unsigned i = 0; i < 2; ++i) {
    const int64_t ea = sa ? sign_extend(a >> (16 * i), 16) : int64_t((a >> (16 * i)) & 0xffff);
    const unsigned byte = (hi ? 2 : 0) + i;
    const int64_t eb = sb ? sign_extend(b >> (8 * byte), 8) : int64_t((b >> (8 * byte)) & 0xff);
    s += ea * eb;
  }
  return s;
}

uint32_t find_nth_set(uint32_t mask, uint32_t base, int32_t offset) {
  if (offset == 0) return (mask >> base) & 1 ? base : ~0u;
  int seen = 0;
  for (int pos = int(base); pos >= 0 && pos < 32; pos += offset > 0 ? 1 : -1)
    if ((mask >> pos) & 1 && ++seen == std::abs(offset)) return uint32_t(pos);
  return ~0u;
}

unsigned clz32(uint32_t v) { return v ? unsigned(__builtin_clz(v)) : 32; }
unsigned clz64(uint64_t v) { return v ? unsigned(__builtin_clzll(v)) : 64; }
unsigned ffs32(uint32_t v) { return v ? unsigned(__builtin_ctz(v)) + 1 : 0; }
unsigned ffs64(uint64_t v) { return v ? unsigned(__builtin_ctzll(v)) + 1 : 0; }
uint32_t reverse32(uint32_t v) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 32; ++i) r |= ((v >> i) & 1) << (31 - i);
  return r;
}
uint64_t reverse64(uint64_t v) { return (uint64_t(reverse32(uint32_t(v))) << 32) | reverse32(uint32_t(v >> 32)); }

/// The 38 32-bit results of integer_ops for one thread, in the kernel's order.
std::vector<uint32_t> integer_reference32(int32_t x, int32_t b) {
  const int32_t y = b | 1;
  const uint32_t ux = uint32_t(x), uy = uint32_t(y);
  const int32_t x24 = sign_extend(ux, 24), y24 = sign_extend(uy, 24);
  const uint64_t both = (uint64_t(uy) << 32) | ux;
  const uint32_t funnel_rc_shift = uy > 32 ? 32 : uy;
  return {
      ux + uy,
      ux - uy,
      ux * uy,
      uint32_t(uint64_t(int64_t(x) * y) >> 32),
      uint32_t((uint64_t(ux) * uy) >> 32),
      uint32_t(int64_t(x24) * y24),
      (ux & 0xffffff) * (uy & 0xffffff),
      uint32_t(x / y),
      uint32_t(x % y),
      ux / uy,
      ux % uy,
      uint32_t(std::abs(x)),
      uint32_t(std::min(x, y)),
      std::max(ux, uy),
      uint32_t(__builtin_popcount(ux)),
      clz32(ux),
      ffs32(ux),
      reverse32(ux),
      byte_perm(ux, uy, 0x5140u),
      uint32_t((both << (uy & 31)) >> 32),
      uint32_t(both >> funnel_rc_shift),
      uint32_t(dot4(ux, uy, true, true) + 7),
      uint32_t(dot4(ux, uy, false, false) + 7),
      uint32_t(dot2(ux, uy, false, true, true) + 3),
      uint32_t(dot2(ux, uy, true, false, false) + 3),
      uint32_t((x < y ? int64_t(y) - x : int64_t(x) - y) + 5),
      (ux < uy ? uy - ux : ux - uy) + 5,
      uint32_t((int64_t(x) + y) >> 1),
      uint32_t((int64_t(x) + y + 1) >> 1),
      uint32_t((uint64_t(ux) + uy) >> 1),
      (ux << (uy & 31)) ^ uint32_t(x >> 3) ^ (ux >> 5),
      (ux & uy) | (~ux & (uy ^ 0x5a5a)),
      (ux >> 4) & 0xfff,
      (ux & ~0xff0u) | ((uy << 4) & 0xff0u),
      uint32_t(x < y ? x : (x == y ? 1 : -1)),
      find_nth_set(ux, 0, 3),
      ux ^ uy ^ (ux >> 3),
      (ux & uy) | (ux & (ux >> 3)) | (uy & (ux >> 3)),
  };
}

/// The 9 64-bit results of integer_ops for one thread.
std::vector<uint64_t> integer_reference64(int32_t x, int32_t b) {
  const int32_t y = b | 1;
  const int64_t lx = int64_t(x) * 1000003, ly = y;
  const uint64_t ulx = uint64_t(lx), uly = uint64_t(ly) | 1;
  return {
      ulx * uly,
      uint64_t((unsigned __int128)ulx * uly >> 64),
      uint64_t((__int128)lx * ly >> 64),
      uint64_t(int64_t(x) * int64_t(y)),
      ulx / uly,
      uint64_t(lx % (ly | 1)),
      uint64_t(__builtin_popcountll(ulx)) + clz64(ulx) + ffs64(ulx),
      reverse64(ulx),
      (ulx << (uint32_t(y) & 63)) | (uly >> (uint32_t(x) & 63)),
  };
}

class CorpusIntegers : public ::testing::TestWithParam<platform::SimulationMode> {};

TEST_P(CorpusIntegers, MatchTheCpuReference) {
  platform::DeviceOptions o;
  o.mode = GetParam();
  GpuDevice dev(o);
  const auto m = dev.load_module(read_file(kCorpus / "integer.ptx"), "integer.ptx");
  constexpr int kThreads = 256;
  std::mt19937 rng(20261127);
  std::vector<int32_t> a(kThreads), b(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    // Within +-2^30 so that x / y cannot overflow; some small and some
    // special values so that popc/clz/ffs see 0 and all-ones patterns.
    a[i] = int32_t(rng() % (1u << 31)) - (1 << 30);
    b[i] = int32_t(rng() % (1u << 31)) - (1 << 30);
    if (i % 16 == 0) a[i] = 0;
    if (i % 16 == 1) a[i] = -1;
    if (i % 16 == 2) b[i] = -1;
    if (i % 16 == 3) b[i] = 40;  // a funnel shift of 41 clamps to 32
  }
  const size_t n32 = integer_reference32(0, 0).size(), n64 = integer_reference64(0, 0).size();
  const uint64_t da = dev.upload(a), db = dev.upload(b);
  const uint64_t dout = dev.allocate(n32 * kThreads * 4), dout64 = dev.allocate(n64 * kThreads * 8);
  dev.launch(m, "integer_ops", {kThreads / 64, 1, 1}, {64, 1, 1}, 0,
             KernelArgs().ptr(da).ptr(db).ptr(dout).ptr(dout64).add<int32_t>(kThreads));
  const auto out = dev.download<uint32_t>(dout, n32 * kThreads);
  const auto out64 = dev.download<uint64_t>(dout64, n64 * kThreads);
  for (int i = 0; i < kThreads; ++i) {
    const auto r32 = integer_reference32(a[i], b[i]);
    for (size_t k = 0; k < n32; ++k)
      EXPECT_EQ(out[k * kThreads + i], r32[k]) << "result " << k << " of thread " << i << " (x=" << a[i]
                                               << ", b=" << b[i] << ")";
    const auto r64 = integer_reference64(a[i], b[i]);
    for (size_t k = 0; k < n64; ++k)
      EXPECT_EQ(out64[k * kThreads + i], r64[k]) << "64-bit result " << k << " of thread " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, CorpusIntegers,
                         ::testing::Values(platform::SimulationMode::Functional, platform::SimulationMode::Timing),
                         [](const ::testing::TestParamInfo<platform::SimulationMode>& p) {
                           return std::string(p.param == platform::SimulationMode::Timing ? "Timing" : "Functional");
                         });

// ---------------------------------------------------------------- wmma

/// IEEE half bits of a float that a half represents exactly (normal range).
uint16_t exact_half(float v) {
  if (v == 0.0f) return 0;
  uint32_t b;
  std::memcpy(&b, &v, 4);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const int exponent = int((b >> 23) & 0xff) - 127 + 15;
  return uint16_t(sign | uint32_t(exponent) << 10 | ((b >> 13) & 0x3ffu));
}
float half_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const float mantissa = float(h & 0x3ff) / 1024.0f;
  const float v = exponent == 0 ? std::ldexp(mantissa, -14) : std::ldexp(1.0f + mantissa, exponent - 15);
  return (h & 0x8000) ? -v : v;
}

/// Small multiples of 1/4: every product and sum of the 16-term dot products
/// is exact in f32 (and, for the f16 kernel, in f16), so the result does not
/// depend on the order in which the tensor core adds.
std::vector<float> quarter_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = float(int(rng() % 17) - 8) / 4.0f;
  return v;
}

class CorpusWarpMatrix : public ::testing::TestWithParam<platform::SimulationMode> {
 protected:
  CorpusWarpMatrix() : dev(options()) { m = dev.load_module(read_file(kCorpus / "wmma.ptx"), "wmma.ptx"); }
  platform::DeviceOptions options() const {
    platform::DeviceOptions o;
    o.mode = GetParam();
    return o;
  }
  std::vector<uint16_t> halves(const std::vector<float>& v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = exact_half(v[i]);
    return h;
  }
  GpuDevice dev;
  platform::ModuleHandle m;
};

TEST_P(CorpusWarpMatrix, F16InputsF32Accumulator16x16x16) {
  // A row-major, B column-major, C and D row-major, all with ldm 16.
  const auto a = quarter_values(256, 1), b = quarter_values(256, 2), c = quarter_values(256, 3);
  const uint64_t da = dev.upload(halves(a)), db = dev.upload(halves(b)), dc = dev.upload(c), dd = dev.allocate(1024);
  dev.launch(m, "wmma_f16_f32", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dc).ptr(dd));
  const auto d = dev.download<float>(dd, 256);
  for (int r = 0; r < 16; ++r)
    for (int n = 0; n < 16; ++n) {
      double want = c[r * 16 + n];
      for (int k = 0; k < 16; ++k) want += double(a[r * 16 + k]) * b[n * 16 + k];
      EXPECT_EQ(d[r * 16 + n], float(want)) << "D[" << r << "][" << n << "]";
    }
  if (GetParam() == platform::SimulationMode::Timing) {
    // The fragments' loads and the store go through the L1D: A and B are
    // 512 bytes each, C and D 1 KB each, in 128-byte lines.
    double l1d_accesses = 0;
    for (const auto& [key, value] : platform::timing_stats())
      if (key.size() > 13 && key.compare(key.size() - 13, 13, ".l1d.accesses") == 0) l1d_accesses += value;
    EXPECT_GE(l1d_accesses, 4 + 4 + 8 + 8);
  }
}

TEST_P(CorpusWarpMatrix, F16Accumulator32x8x16ColumnMajor) {
  // A (32 x 16) column-major ldm 32, B (16 x 8) row-major ldm 8, C filled
  // with 0.5, D column-major ldm 32.
  const auto a = quarter_values(512, 4), b = quarter_values(128, 5);
  const uint64_t da = dev.upload(halves(a)), db = dev.upload(halves(b)), dd = dev.allocate(512);
  dev.launch(m, "wmma_f16_f16", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dd));
  const auto d = dev.download<uint16_t>(dd, 256);
  for (int r = 0; r < 32; ++r)
    for (int n = 0; n < 8; ++n) {
      double want = 0.5;
      for (int k = 0; k < 16; ++k) want += double(a[k * 32 + r]) * b[k * 8 + n];
      EXPECT_EQ(half_value(d[n * 32 + r]), float(want)) << "D[" << r << "][" << n << "]";
    }
}

TEST_P(CorpusWarpMatrix, SignedBytesS32Accumulator8x32x16) {
  // A (8 x 16) and B (16 x 32) row-major; C = 3, then every element of the
  // accumulator fragment + 1 (fragment elements are per-thread data).
  std::mt19937 rng(6);
  std::vector<int8_t> a(128), b(512);
  for (auto& x : a) x = int8_t(rng());
  for (auto& x : b) x = int8_t(rng());
  const uint64_t da = dev.upload(a), db = dev.upload(b), dd = dev.allocate(1024);
  dev.launch(m, "wmma_s8_s32", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dd));
  const auto d = dev.download<int32_t>(dd, 256);
  for (int r = 0; r < 8; ++r)
    for (int n = 0; n < 32; ++n) {
      int32_t want = 3 + 1;
      for (int k = 0; k < 16; ++k) want += int32_t(a[r * 16 + k]) * b[k * 32 + n];
      EXPECT_EQ(d[r * 32 + n], want) << "D[" << r << "][" << n << "]";
    }
}

TEST_P(CorpusWarpMatrix, APartialWarpIsADeviceFault) {
  const uint64_t buf = dev.allocate(4096);
  try {
    dev.launch(m, "wmma_f16_f32", {1, 1, 1}, {16, 1, 1}, 0, KernelArgs().ptr(buf).ptr(buf).ptr(buf).ptr(buf));
    FAIL() << "a 16-thread warp ran wmma";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("all 32 threads"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, CorpusWarpMatrix,
                         ::testing::Values(platform::SimulationMode::Functional, platform::SimulationMode::Timing),
                         [](const ::testing::TestParamInfo<platform::SimulationMode>& p) {
                           return std::string(p.param == platform::SimulationMode::Timing ? "Timing" : "Functional");
                         });

// ---------------------------------------------------------------- control

int collatz_steps(int x) {
  int steps = 0;
  while (x != 1 && steps < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}
int fibonacci(int n) { return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2); }

/// control_ops for one thread of a 1-D grid of `grid_x` CTAs.
int control_reference(int x, unsigned grid_x) {
  int r;
  switch (x & 15) {
    case 0: r = x * 3; break;
    case 1: r = x + 17; break;
    case 2: r = x ^ 0x55; break;
    case 3: r = -x; break;
    case 4: r = int(unsigned(x) << 2); break;
    case 5: r = x >> 1; break;
    case 6: r = int(unsigned(x) * unsigned(x)); break;  // wraps, as mul.lo.s32 does
    case 7: r = x - 100; break;
    case 9: r = 12345; break;
    default: r = 0;
  }
  const int k = (x & 0x7fffffff) % 24;
  r = int(2u * unsigned(r) + unsigned(x) * unsigned(k));  // r += x * k + r, wrapping
  r += collatz_steps((x & 1023) + 1);
  r += fibonacci(x & 7);
  // %smid < %nsmid, %warpid < %nwarpid: 2; the lane masks' xor has no bit
  // set; %globaltimer is not 0; gridDim.x + 1 + 1 + blockDim.y + blockDim.z.
  return r + 2 + 0 + 1 + int(grid_x + 4);
}

struct ControlCase {
  exec::DivergenceMode divergence;
  platform::SimulationMode mode;
};

class CorpusControl : public ::testing::TestWithParam<ControlCase> {};

TEST_P(CorpusControl, SwitchTablesLocalArraysAndRecursionMatchTheCpu) {
  platform::DeviceOptions o;
  o.divergence = GetParam().divergence;
  o.mode = GetParam().mode;
  GpuDevice dev(o);
  const auto m = dev.load_module(read_file(kCorpus / "control.ptx"), "control.ptx");
  constexpr int kThreads = 128;
  std::mt19937 rng(7);
  std::vector<int32_t> in(kThreads);
  // Every lane a different recursion depth and switch case; no trap values.
  for (int i = 0; i < kThreads; ++i) in[i] = int32_t(rng() % 100000) - 50000;
  const uint64_t din = dev.upload(in), dout = dev.allocate(kThreads * 4);
  dev.launch(m, "control_ops", {kThreads / 32, 1, 1}, {32, 1, 1}, 0,
             KernelArgs().ptr(din).ptr(dout).add<int32_t>(kThreads));
  const auto out = dev.download<int32_t>(dout, kThreads);
  for (int i = 0; i < kThreads; ++i)
    EXPECT_EQ(out[i], control_reference(in[i], kThreads / 32)) << "thread " << i << ", x = " << in[i];
}

TEST_P(CorpusControl, RunawayRecursionIsADeviceFault) {
  platform::DeviceOptions o;
  o.divergence = GetParam().divergence;
  o.mode = GetParam().mode;
  GpuDevice dev(o);
  const auto m = dev.load_module(
      ".version 8.0\n.target sm_75\n.address_size 64\n"
      ".func forever()\n{\ncall forever;\nret;\n}\n"
      ".visible .entry spin()\n{\ncall forever;\nret;\n}\n",
      "runaway.ptx");
  try {
    dev.launch(m, "spin", {1, 1, 1}, {32, 1, 1}, 0, KernelArgs());
    FAIL() << "unbounded recursion completed";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("call depth exceeds 1024"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, CorpusControl,
    ::testing::Values(ControlCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Functional},
                      ControlCase{exec::DivergenceMode::Its, platform::SimulationMode::Functional},
                      ControlCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Timing}),
    [](const ::testing::TestParamInfo<ControlCase>& p) {
      std::string name = p.param.divergence == exec::DivergenceMode::Its ? "Its" : "Ipdom";
      return name + (p.param.mode == platform::SimulationMode::Timing ? "Timing" : "Functional");
    });

// ---------------------------------------------------------------- libraries

class CorpusLibraries : public ::testing::TestWithParam<ControlCase> {
 protected:
  CorpusLibraries() : dev(options()) { m = dev.load_module(read_file(kCorpus / "libraries.ptx"), "libraries.ptx"); }
  platform::DeviceOptions options() const {
    platform::DeviceOptions o;
    o.divergence = GetParam().divergence;
    o.mode = GetParam().mode;
    return o;
  }
  static std::vector<int32_t> ints(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<int32_t> v(n);
    for (auto& x : v) x = int32_t(rng() % 2001) - 1000;
    return v;
  }
  GpuDevice dev;
  platform::ModuleHandle m;
};

TEST_P(CorpusLibraries, CubBlockReduceScanAndRadixSort) {
  const auto in = ints(4 * 128, 11);
  const uint64_t din = dev.upload(in), dsum = dev.allocate(4 * 4), dscan = dev.allocate(in.size() * 4);
  dev.launch(m, "cub_reduce", {4, 1, 1}, {128, 1, 1}, 0, KernelArgs().ptr(din).ptr(dsum));
  dev.launch(m, "cub_scan", {4, 1, 1}, {128, 1, 1}, 0, KernelArgs().ptr(din).ptr(dscan));
  const auto sums = dev.download<int32_t>(dsum, 4);
  const auto scan = dev.download<int32_t>(dscan, in.size());
  for (int b = 0; b < 4; ++b) {
    int32_t running = 0;
    for (int t = 0; t < 128; ++t) {
      EXPECT_EQ(scan[b * 128 + t], running) << "block " << b << " thread " << t;
      running += in[b * 128 + t];
    }
    EXPECT_EQ(sums[b], running) << "block " << b;
  }
  auto keys = ints(512, 12);
  const uint64_t dkeys = dev.upload(keys);
  dev.launch(m, "cub_sort", {1, 1, 1}, {128, 1, 1}, 0, KernelArgs().ptr(dkeys));
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(dev.download<int32_t>(dkeys, keys.size()), keys);
}

TEST_P(CorpusLibraries, CooperativeGroupsReduceAndHalfAtomics) {
  // Small integers: every partial sum is exact, whatever the order.
  std::vector<float> in(256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(int(i % 19) - 9);
  const uint64_t din = dev.upload(in), dout = dev.upload(std::vector<float>{0.0f});
  dev.launch(m, "cg_reduce", {2, 1, 1}, {128, 1, 1}, 0, KernelArgs().ptr(din).ptr(dout));
  double want = 0;
  for (float v : in) want += v;
  EXPECT_EQ(dev.download<float>(dout, 1)[0], float(want));

  // 64 threads: __half2 += (1, 2), __half += 1, double += 1, u64 += 1 then max 7.
  const uint64_t h2 = dev.upload(std::vector<uint32_t>{0}), h1 = dev.upload(std::vector<uint16_t>{0});
  const uint64_t dd = dev.upload(std::vector<double>{0.0}), du = dev.upload(std::vector<uint64_t>{0});
  dev.launch(m, "half_atomics", {2, 1, 1}, {32, 1, 1}, 0, KernelArgs().ptr(h2).ptr(h1).ptr(dd).ptr(du));
  EXPECT_EQ(dev.download<uint32_t>(h2, 1)[0], (uint32_t(exact_half(128.0f)) << 16) | exact_half(64.0f));
  EXPECT_EQ(dev.download<uint16_t>(h1, 1)[0], exact_half(64.0f));
  EXPECT_EQ(dev.download<double>(dd, 1)[0], 64.0);
  EXPECT_EQ(dev.download<uint64_t>(du, 1)[0], 64u);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, CorpusLibraries,
    ::testing::Values(ControlCase{exec::DivergenceMode::Ipdom, platform::SimulationMode::Functional},
                      ControlCase{exec::DivergenceMode::Its, platform::SimulationMode::Functional},
                      ControlCase{exec::DivergenceMode::Its, platform::SimulationMode::Timing}),
    [](const ::testing::TestParamInfo<ControlCase>& p) {
      std::string name = p.param.divergence == exec::DivergenceMode::Its ? "Its" : "Ipdom";
      return name + (p.param.mode == platform::SimulationMode::Timing ? "Timing" : "Functional");
    });

}  // namespace
}  // namespace tlmgpu
