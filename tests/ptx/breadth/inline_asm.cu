// Kernels for tests/test_ptx_video.cpp (inline assembly): blocks that declare
// registers without '%' inside '{ }' scopes, as CUB's warp-scan and shuffle
// wrappers write them, predicate second destinations (shfl 'r|p', setp 'p|q')
// and nested scopes whose declarations shadow the outer ones.
// Regenerate: nvcc -ptx -arch=sm_75 -O3 inline_asm.cu -o inline_asm.ptx

// Inclusive warp prefix sum, one shfl.up step per offset; the predicate
// destination says whether the source lane was in range (CUB's ShuffleUp scan step).
__device__ __forceinline__ unsigned scan_step(unsigned value, unsigned offset) {
  unsigned out;
  asm volatile(
      "{\n\t"
      "  .reg .u32 r0;\n\t"
      "  .reg .pred p;\n\t"
      "  shfl.sync.up.b32 r0|p, %1, %2, %3, %4;\n\t"
      "  @p add.u32 r0, r0, %1;\n\t"
      "  mov.u32 %0, r0;\n\t"
      "}"
      : "=r"(out)
      : "r"(value), "r"(offset), "r"(0), "r"(0xffffffffu));
  return out;
}

extern "C" __global__ void warp_inclusive_scan(const unsigned* in, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
#pragma unroll
  for (unsigned offset = 1; offset < 32; offset <<= 1) v = scan_step(v, offset);
  out[i] = v;
}

// shfl.down within segments of 8 lanes (c = 0x1807: segment mask 0x18, clamp 7);
// in_range[i] = the predicate destination as 0/1.
extern "C" __global__ void segmented_shfl_down(const unsigned* in, unsigned delta, unsigned* out,
                                               unsigned* in_range) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v, ok;
  asm volatile(
      "{\n\t"
      "  .reg .pred valid;\n\t"
      "  .reg .u32 got;\n\t"
      "  shfl.sync.down.b32 got|valid, %2, %3, 0x1807, -1;\n\t"
      "  selp.u32 %1, 1, 0, valid;\n\t"
      "  mov.u32 %0, got;\n\t"
      "}"
      : "=r"(v), "=r"(ok)
      : "r"(in[i]), "r"(delta));
  out[i] = v;
  in_range[i] = ok;
}

// setp with 'p|q' on registers without '%', and nested scopes: the inner
// 't' shadows the outer one only inside its block.
extern "C" __global__ void pipe_and_shadowing(const int* a, const int* b, int* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int r;
  asm volatile(
      "{\n\t"
      "  .reg .pred lt, ge;\n\t"
      "  .reg .s32 t;\n\t"
      "  setp.lt.s32 lt|ge, %1, %2;\n\t"
      "  mov.s32 t, 100;\n\t"
      "  {\n\t"
      "    .reg .s32 t;\n\t"
      "    mov.s32 t, 1000;\n\t"
      "    @lt add.s32 %0, t, %1;\n\t"
      "    @ge sub.s32 %0, t, %2;\n\t"
      "  }\n\t"
      "  add.s32 %0, %0, t;\n\t"
      "}"
      : "=r"(r)
      : "r"(a[i]), "r"(b[i]));
  out[i] = r;
}
