// ray: a ray tracer, one thread per pixel, reproducing the GPGPU-Sim
// ISPASS-2009 benchmark RAY (kernel render): a plane and three spheres in
// constant memory, a primary ray, up to five mirror reflections, a shadow
// ray per hit and Phong-style shading per pixel (ray_trace.h holds the
// per-pixel code, shared with the CPU reference). Rays that leave the scene
// early end their loops early: divergent. CTAs of 16 x 8 pixels.
#include "ray_trace.h"

__constant__ ray::Object ray_objects[ray::kRayObjects];
__constant__ ray::Camera ray_camera;

extern "C" __global__ void render(unsigned int* __restrict__ image, int width, int height)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) image[y * width + x] = ray::trace_pixel(x, y, width, height, ray_objects, ray_camera);
}
