// The PTX-family corpus (tests/ptx/corpus/*.cu -> .ptx, nvcc 13 -arch=sm_75
// -O3): every file parses and decodes (what `tlmgpu check-ptx` does), and the
// integer-family kernel's 45 results per thread equal a CPU reference.
// docs/PTX_SUPPORT.md lists which instruction families each file covers.
#include <gtest/gtest.h>

#include <climits>
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

/// The 36 32-bit results of integer_ops for one thread, in the kernel's order.
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

}  // namespace
}  // namespace tlmgpu
