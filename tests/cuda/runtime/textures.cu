// Texture and surface objects over CUDA arrays: a 2D float array filled by
// cudaMemcpy2DToArray and read by tex2D with point filtering (clamped
// coordinates too), and a surface a kernel writes with surf2Dwrite that the
// host reads back with cudaMemcpy2DFromArray.
#include <algorithm>
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

constexpr int kW = 40, kH = 24;

// out is (kW + 2) x (kH + 2): one texel of border on each side, which the
// clamp address mode maps to the edge texels.
__global__ void sample_kernel(cudaTextureObject_t tex, float* out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= kW + 2 || y >= kH + 2) return;
  out[y * (kW + 2) + x] = tex2D<float>(tex, float(x - 1) + 0.5f, float(y - 1) + 0.5f);
}

__global__ void paint_kernel(cudaSurfaceObject_t surf, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) surf2Dwrite(make_int2(x * y, x - y), surf, x * int(sizeof(int2)), y);
}

int main() {
  // --- texture
  std::vector<float> img(kW * kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) img[y * kW + x] = float(y * 100 + x);
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  RT_CHECK(cudaMallocArray(&arr, &fdesc, kW, kH));
  RT_CHECK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), kW * sizeof(float), kW * sizeof(float), kH,
                               cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaTextureDesc td = {};
  td.addressMode[0] = cudaAddressModeClamp;
  td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  cudaTextureObject_t tex = 0;
  RT_CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));

  const int ow = kW + 2, oh = kH + 2;
  float* d_out;
  RT_CHECK(cudaMalloc(&d_out, ow * oh * sizeof(float)));
  dim3 block(16, 8), grid((ow + 15) / 16, (oh + 7) / 8);
  sample_kernel<<<grid, block>>>(tex, d_out);
  RT_CHECK(cudaGetLastError());
  std::vector<float> out(ow * oh);
  RT_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad_tex = 0;
  double tex_sum = 0.0;
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      const int cx = std::min(std::max(x - 1, 0), kW - 1), cy = std::min(std::max(y - 1, 0), kH - 1);
      if (out[y * ow + x] != img[cy * kW + cx]) ++bad_tex;
      tex_sum += out[y * ow + x];
    }
  RT_EXPECT(bad_tex == 0);

  // --- surface
  const int sw = 33, sh = 17;
  cudaChannelFormatDesc idesc = cudaCreateChannelDesc<int2>();
  cudaArray_t sarr;
  RT_CHECK(cudaMallocArray(&sarr, &idesc, sw, sh, cudaArraySurfaceLoadStore));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray;
  sres.res.array.array = sarr;
  cudaSurfaceObject_t surf = 0;
  RT_CHECK(cudaCreateSurfaceObject(&surf, &sres));
  paint_kernel<<<dim3((sw + 7) / 8, (sh + 7) / 8), dim3(8, 8)>>>(surf, sw, sh);
  RT_CHECK(cudaGetLastError());
  // Read back into rows wider than the surface: the pitch differs from the width.
  const size_t pitch = (sw + 3) * sizeof(int2);
  std::vector<int2> back((sw + 3) * sh, make_int2(-7, -7));
  RT_CHECK(cudaMemcpy2DFromArray(back.data(), pitch, sarr, 0, 0, sw * sizeof(int2), sh, cudaMemcpyDeviceToHost));
  int bad_surf = 0;
  long long surf_sum = 0;
  for (int y = 0; y < sh; ++y)
    for (int x = 0; x < sw + 3; ++x) {
      const int2 v = back[y * (sw + 3) + x];
      const bool inside = x < sw;
      if (inside && (v.x != x * y || v.y != x - y)) ++bad_surf;
      if (!inside && (v.x != -7 || v.y != -7)) ++bad_surf;  // the padding is not written
      if (inside) surf_sum += v.x + v.y;
    }
  RT_EXPECT(bad_surf == 0);

  std::printf("textures: tex_sum=%.0f surf_sum=%lld\n", tex_sum, surf_sum);
  RT_CHECK(cudaDestroyTextureObject(tex));
  RT_CHECK(cudaDestroySurfaceObject(surf));
  RT_CHECK(cudaFreeArray(arr));
  RT_CHECK(cudaFreeArray(sarr));
  RT_CHECK(cudaFree(d_out));
  return rt_finish("textures");
}
