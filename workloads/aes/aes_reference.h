// AES-128 (FIPS-197) on the CPU for the aes workload and its CUDA-program
// twin: the S-box from the GF(2^8) inverse and the affine map, the key
// expansion, a byte-wise block encryption (SubBytes, ShiftRows, MixColumns,
// AddRoundKey as the standard states them), and the kernel's constant-memory
// tables. Plain C++, no simulator dependence.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

namespace aes_reference {

inline uint8_t xtime(uint8_t a) { return uint8_t((a << 1) ^ ((a & 0x80) ? 0x1b : 0x00)); }

inline uint8_t gf_mul(uint8_t a, uint8_t b) {
  uint8_t p = 0;
  for (int i = 0; i < 8; ++i) {
    if (b & 1) p ^= a;
    a = xtime(a);
    b >>= 1;
  }
  return p;
}

inline std::array<uint8_t, 256> make_sbox() {
  std::array<uint8_t, 256> s{};
  for (int x = 0; x < 256; ++x) {
    uint8_t inv = 0;  // 0 maps to 0; otherwise the unique y with x*y = 1
    for (int y = 1; y < 256 && x != 0; ++y)
      if (gf_mul(uint8_t(x), uint8_t(y)) == 1) {
        inv = uint8_t(y);
        break;
      }
    uint8_t b = inv;
    uint8_t r = 0x63;
    for (int i = 0; i < 8; ++i) {
      const int bit = ((b >> i) ^ (b >> ((i + 4) % 8)) ^ (b >> ((i + 5) % 8)) ^ (b >> ((i + 6) % 8)) ^
                       (b >> ((i + 7) % 8))) & 1;
      r = uint8_t(r ^ (bit << i));
    }
    s[size_t(x)] = r;
  }
  return s;
}

/// 176 bytes of round keys: round r's key is bytes [16r, 16r + 16), byte
/// 4c + row of a round key XORs into row `row` of column c.
inline std::array<uint8_t, 176> expand_key(const uint8_t key[16], const std::array<uint8_t, 256>& sbox) {
  std::array<uint8_t, 176> w{};
  std::memcpy(w.data(), key, 16);
  uint8_t rcon = 1;
  for (int i = 4; i < 44; ++i) {
    uint8_t temp[4];
    std::memcpy(temp, &w[size_t(4 * (i - 1))], 4);
    if (i % 4 == 0) {
      const uint8_t t0 = temp[0];
      temp[0] = uint8_t(sbox[temp[1]] ^ rcon);
      temp[1] = sbox[temp[2]];
      temp[2] = sbox[temp[3]];
      temp[3] = sbox[t0];
      rcon = xtime(rcon);
    }
    for (int j = 0; j < 4; ++j) w[size_t(4 * i + j)] = uint8_t(w[size_t(4 * (i - 4) + j)] ^ temp[j]);
  }
  return w;
}

/// One 16-byte block in place; byte 4c + r is row r of column c.
inline void encrypt_block(uint8_t block[16], const std::array<uint8_t, 176>& rk, const std::array<uint8_t, 256>& sbox) {
  for (int i = 0; i < 16; ++i) block[i] ^= rk[size_t(i)];
  for (int round = 1; round <= 10; ++round) {
    uint8_t s[16];
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) s[4 * c + r] = sbox[block[4 * ((c + r) % 4) + r]];  // SubBytes, ShiftRows
    if (round < 10) {
      for (int c = 0; c < 4; ++c) {  // MixColumns
        const uint8_t a0 = s[4 * c], a1 = s[4 * c + 1], a2 = s[4 * c + 2], a3 = s[4 * c + 3];
        s[4 * c + 0] = uint8_t(xtime(a0) ^ (xtime(a1) ^ a1) ^ a2 ^ a3);
        s[4 * c + 1] = uint8_t(a0 ^ xtime(a1) ^ (xtime(a2) ^ a2) ^ a3);
        s[4 * c + 2] = uint8_t(a0 ^ a1 ^ xtime(a2) ^ (xtime(a3) ^ a3));
        s[4 * c + 3] = uint8_t((xtime(a0) ^ a0) ^ a1 ^ a2 ^ xtime(a3));
      }
    }
    for (int i = 0; i < 16; ++i) block[i] = uint8_t(s[i] ^ rk[size_t(16 * round + i)]);
  }
}

/// FIPS-197 Appendix C.1: key 000102..0f, plaintext 00112233..ff gives
/// 69c4e0d86a7b0430d8cdb78070b4c55a.
inline bool fips197_vector_holds() {
  uint8_t key[16], block[16];
  for (int i = 0; i < 16; ++i) {
    key[i] = uint8_t(i);
    block[i] = uint8_t(0x11 * i);
  }
  const uint8_t want[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                            0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
  const auto sbox = make_sbox();
  encrypt_block(block, expand_key(key, sbox), sbox);
  return std::memcmp(block, want, 16) == 0;
}

/// The kernel's aes_te: te[k][x] = MixColumns column k (rows 0..3 in bytes
/// 0..3) of S[x], i.e. te[0][x] bytes (2S, S, S, 3S), te[k] = te[0] rotated
/// left by 8k bits.
inline std::array<uint32_t, 1024> t_tables(const std::array<uint8_t, 256>& sbox) {
  std::array<uint32_t, 1024> te{};
  for (int x = 0; x < 256; ++x) {
    const uint8_t s = sbox[size_t(x)], s2 = xtime(s), s3 = uint8_t(s2 ^ s);
    const uint32_t t0 = uint32_t(s2) | uint32_t(s) << 8 | uint32_t(s) << 16 | uint32_t(s3) << 24;
    for (int k = 0; k < 4; ++k) te[size_t(256 * k + x)] = k == 0 ? t0 : (t0 << (8 * k)) | (t0 >> (32 - 8 * k));
  }
  return te;
}

/// The kernel's aes_round_keys: 44 little-endian column words.
inline std::array<uint32_t, 44> round_key_words(const std::array<uint8_t, 176>& rk) {
  std::array<uint32_t, 44> words{};
  for (int i = 0; i < 44; ++i)
    words[size_t(i)] = uint32_t(rk[size_t(4 * i)]) | uint32_t(rk[size_t(4 * i + 1)]) << 8 |
                       uint32_t(rk[size_t(4 * i + 2)]) << 16 | uint32_t(rk[size_t(4 * i + 3)]) << 24;
  return words;
}

}  // namespace aes_reference
