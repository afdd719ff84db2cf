// Warps of two kinds side by side in every CTA: even warps are memory-bound
// (each iteration issues four independent global loads: two strided, two
// hashed gathers, so their next instruction is often a long operation), odd
// warps run a long integer ALU chain with no memory access until the final
// store. The branch is warp-uniform. Integer math: the result is exact.

extern "C" __global__ void long_short_mix(const unsigned* table, unsigned table_mask, unsigned* out,
                                          int mem_iters, int alu_iters) {
  const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned warp = gid / 32;
  unsigned acc = gid * 0x9e3779b9u;
  if ((warp & 1u) == 0) {
    for (int i = 0; i < mem_iters; ++i) {
      unsigned ui = unsigned(i);
      unsigned h = (gid ^ (ui << 16)) * 0x85ebca6bu;
      unsigned a = table[(gid * 17u + ui * 4099u) & table_mask];
      unsigned b = table[(gid * 33u + ui * 8209u + 5u) & table_mask];
      unsigned c = table[(h ^ (h >> 13)) & table_mask];
      unsigned d = table[(h * 0xc2b2ae35u >> 7) & table_mask];
      acc += (a ^ b) + (c ^ (d >> 1));
    }
  } else {
    for (int i = 0; i < alu_iters; ++i) {
      acc ^= acc >> 15;
      acc *= 0x2c1b3c6du;
      acc += unsigned(i);
    }
  }
  out[gid] = acc;
}
