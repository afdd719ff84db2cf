// Kernels for tests/test_ptx_video.cpp: the SIMD intrinsics that nvcc 13
// compiles to PTX video instructions for sm_75 (vabsdiff4, vabsdiff2 with the
// .add accumulate), and bmsk / szext / scalar and SIMD video instructions
// through inline asm, as bit-twiddling libraries write them.
// Regenerate: nvcc -ptx -arch=sm_75 -O3 video_bits.cu -o video_bits.ptx
#include <cstdint>

// Each kernel: out[i] = f(a[i], b[i], c[i]) for one instruction form.
#define VIDEO_KERNEL(name, expr)                                                              \
  extern "C" __global__ void name(const unsigned* a, const unsigned* b, const unsigned* c,    \
                                  unsigned* out) {                                            \
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;                                 \
    const unsigned x = a[i], y = b[i], z = c[i];                                              \
    (void)z;                                                                                  \
    out[i] = (expr);                                                                          \
  }


// CUDA SIMD intrinsics (nvcc emits vabsdiff4 / vabsdiff4.add / vabsdiff2.add).
VIDEO_KERNEL(simd_vabsdiffu4, __vabsdiffu4(x, y))
VIDEO_KERNEL(simd_vabsdiffs4, __vabsdiffs4(x, y))
VIDEO_KERNEL(simd_vsadu4, __vsadu4(x, y))
VIDEO_KERNEL(simd_vsadu2, __vsadu2(x, y))
VIDEO_KERNEL(simd_vsads4, __vsads4(x, y))

__device__ __forceinline__ unsigned bmsk_clamp(unsigned pos, unsigned width) {
  unsigned d;
  asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(d) : "r"(pos), "r"(width));
  return d;
}
__device__ __forceinline__ unsigned bmsk_wrap(unsigned pos, unsigned width) {
  unsigned d;
  asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(d) : "r"(pos), "r"(width));
  return d;
}
__device__ __forceinline__ unsigned szext_clamp_s32(unsigned v, unsigned n) {
  unsigned d;
  asm("szext.clamp.s32 %0, %1, %2;" : "=r"(d) : "r"(v), "r"(n));
  return d;
}
__device__ __forceinline__ unsigned szext_wrap_u32(unsigned v, unsigned n) {
  unsigned d;
  asm("szext.wrap.u32 %0, %1, %2;" : "=r"(d) : "r"(v), "r"(n));
  return d;
}
VIDEO_KERNEL(bits_bmsk_clamp, bmsk_clamp(x & 63, y & 63))
VIDEO_KERNEL(bits_bmsk_wrap, bmsk_wrap(x, y))
VIDEO_KERNEL(bits_szext_clamp_s32, szext_clamp_s32(x, y & 63))
VIDEO_KERNEL(bits_szext_wrap_u32, szext_wrap_u32(x, y))

// Scalar video: byte/half selectors, saturation, secondary op and merge.
__device__ __forceinline__ unsigned vadd_sat_sel(unsigned x, unsigned y) {
  unsigned d;
  asm("vadd.s32.u32.s32.sat %0, %1.b0, %2.h1;" : "=r"(d) : "r"(x), "r"(y));
  return d;
}
__device__ __forceinline__ unsigned vabsdiff_add(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vabsdiff.u32.u32.u32.add %0, %1.b1, %2.b3, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
__device__ __forceinline__ unsigned vmax_merge(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vmax.s32.s32.s32.sat %0.b2, %1.h0, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
__device__ __forceinline__ unsigned vshl_clamp_min(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vshl.u32.u32.u32.clamp.min %0, %1, %2.b0, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
__device__ __forceinline__ unsigned vshr_wrap(unsigned x, unsigned y) {
  unsigned d;
  asm("vshr.s32.s32.u32.wrap %0, %1, %2;" : "=r"(d) : "r"(x), "r"(y));
  return d;
}
__device__ __forceinline__ unsigned vmad_neg_shr15(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vmad.s32.s32.u32.sat.shr15 %0, -%1.h1, %2.h0, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
__device__ __forceinline__ unsigned vmad_po(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vmad.u32.u32.u32.po %0, %1.b0, %2.b1, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
__device__ __forceinline__ unsigned vset_max(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vset.s32.u32.lt.max %0, %1.b3, %2.b0, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
VIDEO_KERNEL(scalar_vadd_sat_sel, vadd_sat_sel(x, y))
VIDEO_KERNEL(scalar_vabsdiff_add, vabsdiff_add(x, y, z))
VIDEO_KERNEL(scalar_vmax_merge, vmax_merge(x, y, z))
VIDEO_KERNEL(scalar_vshl_clamp_min, vshl_clamp_min(x, y, z))
VIDEO_KERNEL(scalar_vshr_wrap, vshr_wrap(x, y))
VIDEO_KERNEL(scalar_vmad_neg_shr15, vmad_neg_shr15(x, y, z))
VIDEO_KERNEL(scalar_vmad_po, vmad_po(x, y, z))
VIDEO_KERNEL(scalar_vset_max, vset_max(x, y, z))

// SIMD video with masks, selectors, saturation and accumulate.
__device__ __forceinline__ unsigned vadd4_sat(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vadd4.s32.s32.s32.sat %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
__device__ __forceinline__ unsigned vavrg2_sel(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vavrg2.s32.s32.s32 %0.h1, %1.h01, %2.h23, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
__device__ __forceinline__ unsigned vmin4_mask(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vmin4.u32.u32.u32 %0.b20, %1.b7531, %2.b0246, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
__device__ __forceinline__ unsigned vset4_add(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vset4.u32.u32.ge.add %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
__device__ __forceinline__ unsigned vsub2_sat(unsigned x, unsigned y, unsigned z) {
  unsigned d;
  asm("vsub2.u32.s32.s32.sat %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(y), "r"(z));
  return d;
}
VIDEO_KERNEL(simd_vadd4_sat, vadd4_sat(x, y, z))
VIDEO_KERNEL(simd_vavrg2_sel, vavrg2_sel(x, y, z))
VIDEO_KERNEL(simd_vmin4_mask, vmin4_mask(x, y, z))
VIDEO_KERNEL(simd_vset4_add, vset4_add(x, y, z))
VIDEO_KERNEL(simd_vsub2_sat, vsub2_sat(x, y, z))
