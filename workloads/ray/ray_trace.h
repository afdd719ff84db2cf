// The per-pixel ray tracer of the ray workload, shared by its kernel
// (ray.cu, compiled by nvcc) and its CPU reference (ray.cpp and the CUDA
// program twin, compiled by the host compiler), so that both run the same
// float operations in the same order: every multiply, add and divide is an
// explicitly rounded one (__fmul_rn, __fadd_rn, __fdiv_rn, __fsqrt_rn on the
// device, which nvcc never contracts into an fma; plain operators on the
// host, built without contraction), so the pixels agree bit for bit.
//
// The scene is the ISPASS RAY one: a plane (the floor) and three spheres,
// a point light, a camera looking at the origin; a primary ray per pixel,
// up to kRayDepth reflections, a shadow ray per hit, ambient + diffuse +
// a specular term with exponent 50, each reflection level weighted 0.8.
#pragma once

#include <stdint.h>

#if defined(__CUDACC__)
#define RAY_FN __host__ __device__ __forceinline__
#else
#define RAY_FN inline
#include <cmath>
#endif

// Loops the kernel keeps rolled (the two loops over the objects and the
// compositing of the levels): a shape for which ptxas's register count and
// the model's PTX estimate agree (nvcc unrolls them otherwise).
#if defined(__CUDA_ARCH__)
#define RAY_ROLLED _Pragma("unroll 1")
#else
#define RAY_ROLLED
#endif

namespace ray {

constexpr int kRayObjects = 4;
constexpr int kRayDepth = 5;
constexpr float kRayFar = 10000.0f;

struct Vec3 {
  float x, y, z;
};

/// A sphere (centre, radius) or, with is_plane, the plane through `centre`
/// with normal (0, 1, 0); `colour` is RGBA in [0, 1].
struct Object {
  Vec3 centre;
  float radius;
  float colour[4];
  int is_plane;
  int pad[3];
};

/// Eye position, forward (u), up (v) and right (w) unit vectors, focal distance.
struct Camera {
  Vec3 eye, forward, up, right;
  float focal;
};

RAY_FN float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
RAY_FN float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
RAY_FN float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
RAY_FN float div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
RAY_FN float root(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
RAY_FN float lesser(float a, float b) { return a < b ? a : b; }
RAY_FN float greater(float a, float b) { return a > b ? a : b; }

RAY_FN Vec3 vadd(Vec3 a, Vec3 b) { return {add(a.x, b.x), add(a.y, b.y), add(a.z, b.z)}; }
RAY_FN Vec3 vsub(Vec3 a, Vec3 b) { return {sub(a.x, b.x), sub(a.y, b.y), sub(a.z, b.z)}; }
RAY_FN Vec3 vscale(Vec3 a, float s) { return {mul(a.x, s), mul(a.y, s), mul(a.z, s)}; }
RAY_FN float dot(Vec3 a, Vec3 b) { return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z)); }
RAY_FN Vec3 normalize(Vec3 a) { return vscale(a, div(1.0f, root(dot(a, a)))); }

/// Distance along the unit direction `dir` from `origin` to `obj`, or a
/// negative value for a miss.
RAY_FN float intersect(const Object& obj, Vec3 origin, Vec3 dir) {
  if (obj.is_plane) {
    if (dir.y > -1e-6f && dir.y < 1e-6f) return -1.0f;
    return div(sub(obj.centre.y, origin.y), dir.y);
  }
  const Vec3 oc = vsub(origin, obj.centre);
  const float b = dot(oc, dir);
  const float c = sub(dot(oc, oc), mul(obj.radius, obj.radius));
  const float disc = sub(mul(b, b), c);
  if (disc < 0.0f) return -1.0f;
  const float s = root(disc);
  const float near = sub(sub(0.0f, b), s);
  return near > 0.0f ? near : add(sub(0.0f, b), s);
}

/// x^50 by squaring (x^32 * x^16 * x^2).
RAY_FN float pow50(float x) {
  const float x2 = mul(x, x), x4 = mul(x2, x2), x8 = mul(x4, x4), x16 = mul(x8, x8), x32 = mul(x16, x16);
  return mul(mul(x32, x16), x2);
}

RAY_FN uint32_t channel(float v) { return uint32_t(mul(greater(0.0f, lesser(1.0f, v)), 255.0f)); }

/// The RGBA8 colour of pixel (px, py) of a width x height image.
RAY_FN uint32_t trace_pixel(int px, int py, int width, int height, const Object* objects, const Camera& cam) {
  const Vec3 light = {10.0f, 10.0f, 10.0f};
  const float pixel = div(2.0f, float(width < height ? width : height));
  Vec3 origin = cam.eye;
  Vec3 dir = vadd(vadd(vscale(cam.forward, cam.focal), vscale(cam.right, mul(sub(float(px), mul(float(width), 0.5f)), pixel))),
                  vscale(cam.up, mul(sub(float(py), mul(float(height), 0.5f)), pixel)));
  dir = normalize(dir);

  float layer[kRayDepth][4];
  int levels = 0;
  for (int level = 0; level < kRayDepth; ++level) {
    float nearest = kRayFar;
    int hit = -1;
    RAY_ROLLED
    for (int j = 0; j < kRayObjects; ++j) {
      const float t = intersect(objects[j], origin, dir);
      if (t > 0.0f && t < nearest) {
        nearest = t;
        hit = j;
      }
    }
    if (hit < 0) break;
    ++levels;
    const Object& obj = objects[hit];
    const Vec3 p = vadd(origin, vscale(dir, nearest));
    const Vec3 to_light = vsub(light, p);
    const float light_distance = root(dot(to_light, to_light));
    const Vec3 l = vscale(to_light, div(1.0f, light_distance));
    const Vec3 v = normalize(vsub(origin, p));
    const Vec3 n = obj.is_plane ? Vec3{0.0f, 1.0f, 0.0f} : normalize(vsub(p, obj.centre));
    const Vec3 nf = dot(v, n) < 0.0f ? vscale(n, -1.0f) : n;  // the normal facing the viewer
    for (int c = 0; c < 4; ++c) layer[level][c] = mul(0.05f, obj.colour[c]);

    const float diffuse = dot(nf, l);
    if (diffuse > 0.0f) {
      bool lit = true;
      const Vec3 start = vadd(p, vscale(l, 1e-4f));
      RAY_ROLLED
      for (int j = 0; j < kRayObjects; ++j) {
        const float t = intersect(objects[j], start, l);
        if (t > 0.0f && t < light_distance) lit = false;
      }
      if (lit) {
        const float d = lesser(1.0f, diffuse);
        for (int c = 0; c < 4; ++c) layer[level][c] = add(layer[level][c], mul(mul(0.3f, obj.colour[c]), d));
        const Vec3 h = normalize(vadd(l, v));
        const float specular = mul(0.8f, pow50(greater(0.0f, lesser(1.0f, dot(nf, h)))));
        for (int c = 0; c < 3; ++c) layer[level][c] = add(layer[level][c], specular);
      }
    }
    // Mirror reflection about n, leaving the surface by a small step.
    dir = normalize(vsub(vscale(n, mul(2.0f, dot(n, v))), v));
    origin = vadd(p, vscale(dir, 1e-4f));
  }

  float rgba[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (levels > 0) {
    for (int c = 0; c < 4; ++c) rgba[c] = layer[levels - 1][c];
    RAY_ROLLED
    for (int level = levels - 2; level >= 0; --level)
      for (int c = 0; c < 4; ++c) rgba[c] = add(layer[level][c], mul(0.8f, rgba[c]));
  }
  return channel(rgba[0]) | channel(rgba[1]) << 8 | channel(rgba[2]) << 16 | channel(rgba[3]) << 24;
}

}  // namespace ray
