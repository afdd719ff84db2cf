// Kernels for tests/test_ptx_textures.cpp: texture and surface objects as
// CUDA programs use them (tex1Dfetch, tex1D/2D/3D, layered, cubemap,
// tex2DGather, tex2DLod, tex2DGrad, surf2Dread/surf2Dwrite, layered surfaces).
// Regenerate: nvcc -ptx -arch=sm_75 -O3 textures.cu -o textures.ptx
#include <cstdint>

// out[i] = tex1Dfetch(t, idx[i]) (a linear buffer; integer index).
extern "C" __global__ void fetch1d(cudaTextureObject_t t, const int* idx, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float4>(t, idx[i]);
}

// Integer element reads (cudaReadModeElementType on a signed/unsigned format).
extern "C" __global__ void fetch1d_int(cudaTextureObject_t t, const int* idx, int4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int4>(t, idx[i]);
}

extern "C" __global__ void sample1d(cudaTextureObject_t t, const float* x, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1D<float4>(t, x[i]);
}

extern "C" __global__ void sample2d(cudaTextureObject_t t, const float2* xy, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, xy[i].x, xy[i].y);
}

extern "C" __global__ void sample2d_uint(cudaTextureObject_t t, const float2* xy, uint4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<uint4>(t, xy[i].x, xy[i].y);
}

extern "C" __global__ void sample3d(cudaTextureObject_t t, const float4* xyz, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float4>(t, xyz[i].x, xyz[i].y, xyz[i].z);
}

extern "C" __global__ void sample1d_layered(cudaTextureObject_t t, const float2* xl, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1DLayered<float4>(t, xl[i].x, int(xl[i].y));
}

extern "C" __global__ void sample2d_layered(cudaTextureObject_t t, const float4* xyl, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLayered<float4>(t, xyl[i].x, xyl[i].y, int(xyl[i].z));
}

extern "C" __global__ void sample_cube(cudaTextureObject_t t, const float4* dir, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float4>(t, dir[i].x, dir[i].y, dir[i].z);
}

// tld4: the four texels of the bilinear footprint, one channel each.
extern "C" __global__ void gather2d(cudaTextureObject_t t, const float2* xy, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[4 * i + 0] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 0);
    out[4 * i + 1] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 1);
    out[4 * i + 2] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 2);
    out[4 * i + 3] = tex2Dgather<float4>(t, xy[i].x, xy[i].y, 3);
  }
}

extern "C" __global__ void sample2d_lod(cudaTextureObject_t t, const float4* xyl, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DLod<float4>(t, xyl[i].x, xyl[i].y, xyl[i].z);
}

extern "C" __global__ void sample2d_grad(cudaTextureObject_t t, const float2* xy, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2DGrad<float4>(t, xy[i].x, xy[i].y, make_float2(0.5f, 0.f), make_float2(0.f, 0.5f));
}

// Surfaces: out-of-range reads/writes follow each boundary mode.
// Every thread of a (w+4) x (h+4) grid around the surface reads with clamp
// (out[] shows what it read); the in-range ones write 2v+1 to dst.
extern "C" __global__ void surf_copy_clamp(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, float* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x - 2, y = blockIdx.y * blockDim.y + threadIdx.y - 2;
  const float v = surf2Dread<float>(src, x * 4, y, cudaBoundaryModeClamp);
  out[(y + 2) * (w + 4) + x + 2] = v;
  if (x >= 0 && y >= 0 && x < w && y < h) surf2Dwrite(v * 2.f + 1.f, dst, x * 4, y, cudaBoundaryModeClamp);
}

extern "C" __global__ void surf_read_zero(cudaSurfaceObject_t src, int* out, int w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x - 2, y = blockIdx.y * blockDim.y + threadIdx.y - 2;
  out[(y + 2) * (w + 4) + x + 2] = surf2Dread<int>(src, x * 4, y, cudaBoundaryModeZero);
}

extern "C" __global__ void surf_write_zero(cudaSurfaceObject_t dst, int w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x - 2, y = blockIdx.y * blockDim.y + threadIdx.y - 2;
  surf2Dwrite(x * 100 + y, dst, x * 4, y, cudaBoundaryModeZero);
}

extern "C" __global__ void surf_write_trap(cudaSurfaceObject_t dst, int x, int y) {
  surf2Dwrite(7, dst, x * 4, y, cudaBoundaryModeTrap);
}

// uchar4 surface elements (suld/sust .v4.b8) and a 1-D surface.
extern "C" __global__ void surf_rgba(cudaSurfaceObject_t src, cudaSurfaceObject_t dst1d, int w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  const uchar4 c = surf2Dread<uchar4>(src, x * 4, y);
  surf1Dwrite(make_uchar4(c.w, c.z, c.y, c.x), dst1d, (y * w + x) * 4);
}

extern "C" __global__ void surf3d_copy(cudaSurfaceObject_t src, cudaSurfaceObject_t dst) {
  const int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  const short2 v = surf3Dread<short2>(src, x * 4, y, z);
  surf3Dwrite(make_short2(v.y, v.x), dst, x * 4, y, z);
}

// Layered surfaces (suld/sust .a1d and .a2d): each layer of a 1-D layered
// surface is reversed into the 2-D layered one's row `layer % h` of layer
// `layer / h`, plus the layer number; one thread per element of the source.
extern "C" __global__ void surf_layered(cudaSurfaceObject_t src1d, cudaSurfaceObject_t dst2d, int h) {
  const int x = threadIdx.x, layer = blockIdx.x, w = blockDim.x;
  const int v = surf1DLayeredread<int>(src1d, x * 4, layer);
  surf2DLayeredwrite(v + layer, dst2d, (w - 1 - x) * 4, layer % h, layer / h);
}

// Reads back a 2-D layered surface of ushort2 elements, swapping the halves.
extern "C" __global__ void surf_layered_read2d(cudaSurfaceObject_t src, ushort2* out, int w, int h) {
  const int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
  const ushort2 v = surf2DLayeredread<ushort2>(src, x * 4, y, layer, cudaBoundaryModeZero);
  out[(layer * h + y) * w + x] = make_ushort2(v.y, v.x);
}

// A 1-D layered store with .trap (out of range: a fault) at (x, layer).
extern "C" __global__ void surf_layered_write_trap(cudaSurfaceObject_t dst, int x, int layer) {
  surf1DLayeredwrite(5, dst, x * 4, layer, cudaBoundaryModeTrap);
}
