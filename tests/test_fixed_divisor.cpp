// FixedDivisor replaces the hardware divide in the address maps, the DRAM
// decode and the cycle arithmetic: it must give exactly x / d and x % d.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "core/bit_ops.h"
#include "memory/interconnect.h"

namespace {

using tlmgpu::core::FixedDivisor;

void expect_exact(uint64_t d, uint64_t x) {
  const tlmgpu::core::FixedDivisor div(d);
  ASSERT_EQ(div.div(x), x / d) << x << " / " << d;
  ASSERT_EQ(div.mod(x), x % d) << x << " % " << d;
}

TEST(FixedDivisor, ExactForEveryDivisorKindAndEdgeValues) {
  // Powers of two, small odd and even divisors, a clock period in ps (1 GHz
  // in SystemC's default resolution), and divisors near 2^64.
  const std::vector<uint64_t> divisors = {1,     2,          3,          6,          7,          12,
                                          48,    1000,       1428,       (1ull << 32) - 1,   1ull << 32,
                                          (1ull << 32) + 1,  ~0ull / 3,  (1ull << 63) - 1,   1ull << 63,
                                          ~0ull - 1,         ~0ull};
  for (const uint64_t d : divisors) {
    const uint64_t top = ~uint64_t(0);
    for (const uint64_t x : std::vector<uint64_t>{0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, top, top - 1, top - d,
                                                  (top / d) * d, (top / d) * d - 1, uint64_t(1) << 63})
      expect_exact(d, x);
  }
}

TEST(FixedDivisor, ExactOnRandomOperands) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    // Divisors of every magnitude: a random number shifted right by 0..63 bits.
    const uint64_t d = std::max<uint64_t>(rng() >> (rng() % 64), 1);
    const uint64_t x = rng() >> (rng() % 64);
    expect_exact(d, x);
  }
}

TEST(FixedDivisor, ZeroDividesByOne) {
  const tlmgpu::core::FixedDivisor div(0);
  EXPECT_EQ(div.divisor(), 1u);
  EXPECT_EQ(div.div(12345), 12345u);
  EXPECT_EQ(div.mod(12345), 0u);
}

TEST(L2AddressMap, SliceAndLocalAddressMatchTheDefinitionWithDivision) {
  // The map computed with plain division (its definition), for 6 slices
  // (not a power of two) and for 8.
  for (const uint32_t slices : {6u, 8u, 12u}) {
    const tlmgpu::memory::L2AddressMap map(slices, 256);
    std::mt19937_64 rng(slices);
    for (int i = 0; i < 20000; ++i) {
      const uint64_t addr = rng() >> (rng() % 40);
      const uint64_t chunk = addr / 256;
      ASSERT_EQ(map.slice_of(addr), uint32_t((chunk % slices + (chunk / slices) % slices) % slices)) << addr;
      ASSERT_EQ(map.local_address(addr), (addr / 256 / slices) * 256 + addr % 256) << addr;
    }
  }
}

}  // namespace
