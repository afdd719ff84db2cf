// SHA-1 (FIPS 180-4) on the CPU for the sto workload and its CUDA-program
// twin: a byte-oriented message of any length, big-endian digest words.
// Plain C++, no simulator dependence.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace sha1_reference {

inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

inline std::array<uint32_t, 5> digest(const uint8_t* message, size_t length) {
  std::vector<uint8_t> m(message, message + length);
  m.push_back(0x80);
  while (m.size() % 64 != 56) m.push_back(0);
  const uint64_t bits = uint64_t(length) * 8;
  for (int i = 7; i >= 0; --i) m.push_back(uint8_t(bits >> (8 * i)));

  std::array<uint32_t, 5> h = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  for (size_t block = 0; block < m.size(); block += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; ++i)
      w[i] = uint32_t(m[block + 4 * size_t(i)]) << 24 | uint32_t(m[block + 4 * size_t(i) + 1]) << 16 |
             uint32_t(m[block + 4 * size_t(i) + 2]) << 8 | uint32_t(m[block + 4 * size_t(i) + 3]);
    for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; ++i) {
      uint32_t f, k;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5A827999u;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ED9EBA1u;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8F1BBCDCu;
      } else {
        f = b ^ c ^ d;
        k = 0xCA62C1D6u;
      }
      const uint32_t temp = rotl(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = temp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  }
  return h;
}

/// FIPS 180 example: SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d.
inline bool abc_vector_holds() {
  const uint8_t abc[3] = {'a', 'b', 'c'};
  const std::array<uint32_t, 5> want = {0xa9993e36u, 0x4706816au, 0xba3e2571u, 0x7850c26cu, 0x9cd0d89du};
  return digest(abc, 3) == want;
}

}  // namespace sha1_reference
