// Fixture: warp-level primitives, block-wide reductions, math functions.
extern "C" __global__ void warp_kernel(const float* in, float* out, unsigned* bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  float w = __shfl_xor_sync(0xffffffffu, v, 1);
  w += __shfl_up_sync(0xffffffffu, w, 2);
  w += __shfl_sync(0xffffffffu, w, 3);
  unsigned b = __ballot_sync(0xffffffffu, v > 0.0f);
  int all = __all_sync(0xffffffffu, v > 1.0f);
  int any = __any_sync(0xffffffffu, v > 2.0f);
  unsigned am = __activemask();
  unsigned m = __match_any_sync(0xffffffffu, i & 3);
  int c = __syncthreads_count(v > 0.0f);
  int a = __syncthreads_and(v > 0.0f);
  int r = __syncthreads_or(v > 0.0f);
  __syncwarp();
  if (i < n) {
    out[i] = w + sqrtf(v) + __expf(w) + sinf(w) + tanhf(w) + 1.0f / v + (float)sqrt((double)v);
    bits[i] = b ^ all ^ any ^ am ^ m ^ c ^ a ^ r ^ __popc(b) ^ __clz(m) ^ __brev(am) ^ __ffs(b);
  }
}

extern "C" __global__ void math_kernel(const double* in, double* out, int* iout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double x = in[i];
    out[i] = x / (x + 1.0) + fma(x, 2.0, 3.0) + (double)(long long)x + rsqrt(x);
    float f = (float)x;
    iout[i] = __float2int_rn(f) + (int)f + __float_as_int(copysignf(f, -1.0f)) + isfinite(f) +
              __funnelshift_l(i, n, 5) + __byte_perm(i, n, 0x5410) + (i / n) + (i % n) +
              __mul24(i, n) + __umulhi(i, n) + ((unsigned)i >> (n & 7)) + (int)__saturatef(f);
  }
}
