// Corpus: the integer arithmetic, logic, shift and comparison families.
#include <cstdint>

// Three-input logic is left to ptxas by nvcc; CUDA libraries write it inline.
template <unsigned kTable>
__device__ __forceinline__ unsigned lop3(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c), "n"(kTable));
  return d;
}

extern "C" __global__ void integer_ops(const int* a, const int* b, int* out, unsigned long long* out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i] | 1;
  unsigned ux = unsigned(x), uy = unsigned(y);
  int k = 0;
  out[n * k++ + i] = x + y;
  out[n * k++ + i] = x - y;
  out[n * k++ + i] = x * y;
  out[n * k++ + i] = __mulhi(x, y);
  out[n * k++ + i] = int(__umulhi(ux, uy));
  out[n * k++ + i] = __mul24(x, y);
  out[n * k++ + i] = int(__umul24(ux, uy));
  out[n * k++ + i] = x / y;
  out[n * k++ + i] = x % y;
  out[n * k++ + i] = int(ux / uy);
  out[n * k++ + i] = int(ux % uy);
  out[n * k++ + i] = abs(x);
  out[n * k++ + i] = min(x, y);
  out[n * k++ + i] = int(max(ux, uy));
  out[n * k++ + i] = __popc(ux);
  out[n * k++ + i] = __clz(x);
  out[n * k++ + i] = __ffs(x);
  out[n * k++ + i] = int(__brev(ux));
  out[n * k++ + i] = int(__byte_perm(ux, uy, 0x5140u));
  out[n * k++ + i] = int(__funnelshift_l(ux, uy, y & 31));
  out[n * k++ + i] = int(__funnelshift_rc(ux, uy, y));
  out[n * k++ + i] = __dp4a(x, y, 7);
  out[n * k++ + i] = int(__dp4a(ux, uy, 7u));
  out[n * k++ + i] = __dp2a_lo(x, y, 3);
  out[n * k++ + i] = int(__dp2a_hi(ux, uy, 3u));
  out[n * k++ + i] = int(__sad(x, y, 5u));
  out[n * k++ + i] = int(__usad(ux, uy, 5u));
  out[n * k++ + i] = __hadd(x, y);
  out[n * k++ + i] = __rhadd(x, y);
  out[n * k++ + i] = int(__uhadd(ux, uy));
  out[n * k++ + i] = (x << (y & 31)) ^ (x >> 3) ^ int(ux >> 5);
  out[n * k++ + i] = (x & y) | (~x & (y ^ 0x5a5a)) ;
  out[n * k++ + i] = (ux >> 4) & 0xfff;                 // bfe
  out[n * k++ + i] = int((ux & ~0xff0u) | ((uy << 4) & 0xff0u));  // bfi
  out[n * k++ + i] = x < y ? x : (x == y ? 1 : -1);
  out[n * k++ + i] = int(__fns(ux, 0, 3));
  out[n * k++ + i] = int(lop3<0x96>(ux, uy, ux >> 3));  // a ^ b ^ c
  out[n * k++ + i] = int(lop3<0xe8>(ux, uy, ux >> 3));  // majority
  long long lx = (long long)x * 1000003LL, ly = (long long)y;
  unsigned long long ulx = (unsigned long long)lx, uly = (unsigned long long)ly | 1;
  int j = 0;
  out64[n * j++ + i] = ulx * uly;
  out64[n * j++ + i] = __umul64hi(ulx, uly);
  out64[n * j++ + i] = (unsigned long long)__mul64hi(lx, ly);
  out64[n * j++ + i] = (unsigned long long)((long long)x * (long long)y);  // mul.wide
  out64[n * j++ + i] = ulx / uly;
  out64[n * j++ + i] = (unsigned long long)(lx % (ly | 1));
  out64[n * j++ + i] = (unsigned long long)__popcll(ulx) + (unsigned long long)__clzll(lx) + __ffsll(lx);
  out64[n * j++ + i] = __brevll(ulx);
  out64[n * j++ + i] = (ulx << (y & 63)) | (uly >> (x & 63));
}
