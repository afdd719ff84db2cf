// Kernels for tests/test_ptx_breadth.cpp: the PTX integer carry chain
// (add.cc/addc, sub.cc/subc, mad.lo.cc/madc.hi) through inline asm, as
// multi-word arithmetic libraries write it.
// Regenerate: nvcc -ptx -arch=sm_75 -O3 carry_bits.cu -o carry_bits.ptx
#include <cstdint>

// out[i] = a[i] + b[i] as 128-bit numbers (four 32-bit words, little end first).
extern "C" __global__ void add128(const uint4* a, const uint4* b, uint4* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint4 x = a[i], y = b[i];
  uint4 r;
  asm("add.cc.u32 %0, %4, %8;\n\t"
      "addc.cc.u32 %1, %5, %9;\n\t"
      "addc.cc.u32 %2, %6, %10;\n\t"
      "addc.u32 %3, %7, %11;"
      : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
      : "r"(x.x), "r"(x.y), "r"(x.z), "r"(x.w), "r"(y.x), "r"(y.y), "r"(y.z), "r"(y.w));
  out[i] = r;
}

// out[i] = a[i] - b[i] as 128-bit numbers (two 64-bit words), with the final
// borrow in borrow[i] (subc of zeros: 0 - (0 + CF)).
extern "C" __global__ void sub128(const ulonglong2* a, const ulonglong2* b, ulonglong2* out, int* borrow) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const ulonglong2 x = a[i], y = b[i];
  ulonglong2 r;
  int bw;
  asm("sub.cc.u64 %0, %3, %5;\n\t"
      "subc.cc.u64 %1, %4, %6;\n\t"
      "subc.s32 %2, 0, 0;"
      : "=l"(r.x), "=l"(r.y), "=r"(bw)
      : "l"(x.x), "l"(x.y), "l"(y.x), "l"(y.y));
  out[i] = r;
  borrow[i] = -bw;
}

// out[i] = the full 64-bit product a[i] * b[i] plus c[i] (64-bit), from
// 32-bit multiply-adds: mad.lo.cc then madc.hi.
extern "C" __global__ void mad_wide(const unsigned* a, const unsigned* b, const unsigned long long* c,
                                    unsigned long long* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned long long cc = c[i];
  unsigned lo, hi;
  asm("mad.lo.cc.u32 %0, %2, %3, %4;\n\t"
      "madc.hi.u32 %1, %2, %3, %5;"
      : "=r"(lo), "=r"(hi)
      : "r"(a[i]), "r"(b[i]), "r"(unsigned(cc)), "r"(unsigned(cc >> 32)));
  out[i] = (static_cast<unsigned long long>(hi) << 32) | lo;
}

// Divergent lanes keep their own carry: odd lanes add with carry in,
// even lanes subtract with borrow; the flag survives the branch.
extern "C" __global__ void carry_diverge(const unsigned* a, const unsigned* b, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = a[i], y = b[i], lo, hi;
  if (i & 1) {
    asm volatile("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, 0, 0;" : "=r"(lo), "=r"(hi) : "r"(x), "r"(y));
  } else {
    asm volatile("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, 0, 0;" : "=r"(lo), "=r"(hi) : "r"(x), "r"(y));
  }
  out[2 * i] = lo;
  out[2 * i + 1] = hi;
}
