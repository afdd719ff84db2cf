// ray as a CUDA program: the host steps of workloads/ray/ray.cpp (the scene
// and camera into constant memory, one render launch, every pixel checked
// against the shared per-pixel code run on the CPU).
#include <cmath>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/ray/ray.cu"

namespace {

void normalise(double* v) {
  const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int i = 0; i < 3; ++i) v[i] /= n;
}

std::vector<ray::Object> scene(float shift) {
  std::vector<ray::Object> objects(ray::kRayObjects);
  auto set = [&](int i, float x, float y, float z, float radius, float r, float g, float b, int plane) {
    objects[size_t(i)] = ray::Object{{x + shift, y, z}, radius, {r, g, b, 1.0f}, plane, {0, 0, 0}};
  };
  set(0, 0.0f, -1.5f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1);
  set(1, -1.0f, 0.0f, -1.0f, 0.5f, 1.0f, 0.0f, 0.0f, 0);
  set(2, 1.0f, 0.0f, -1.0f, 0.5f, 0.0f, 0.0f, 1.0f, 0);
  set(3, 0.0f, 0.0f, -2.0f, 0.75f, 0.0f, 1.0f, 0.0f, 0);
  return objects;
}

ray::Camera make_camera() {
  const double eye[3] = {0.0, 0.5, 2.0};
  double f[3] = {-eye[0], -eye[1], -eye[2]};
  normalise(f);
  double u[3] = {0.0, 1.0, 0.0};
  const double fu = f[0] * u[0] + f[1] * u[1] + f[2] * u[2];
  for (int i = 0; i < 3; ++i) u[i] -= fu * f[i];
  normalise(u);
  double r[3] = {f[1] * u[2] - f[2] * u[1], f[2] * u[0] - f[0] * u[2], f[0] * u[1] - f[1] * u[0]};
  normalise(r);
  auto v3 = [](const double* v) { return ray::Vec3{float(v[0]), float(v[1]), float(v[2])}; };
  const double pi = 3.14159265358979323846;
  return ray::Camera{v3(eye), v3(f), v3(u), v3(r), float(1.0 / std::tan(65.0 * pi / 180.0 / 2.0))};
}

}  // namespace

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int width = opt.size == program::Size::Small ? 32 : 256;
  const int height = width;
  const unsigned bx = 16, by = 8;

  program::InputRng rng(opt.seed);
  const float shift = rng.uniform(-1.0f, 1.0f);
  const std::vector<ray::Object> objects = scene(shift);
  const ray::Camera camera = make_camera();

  CUDA_CHECK(cudaMemcpyToSymbol(ray_objects, objects.data(), objects.size() * sizeof(ray::Object)));
  CUDA_CHECK(cudaMemcpyToSymbol(ray_camera, &camera, sizeof(camera)));
  const size_t pixels = size_t(width) * size_t(height);
  unsigned* d_image = program::device_alloc<unsigned>(pixels);
  render<<<dim3(unsigned(width) / bx, unsigned(height) / by), dim3(bx, by)>>>(d_image, width, height);
  CUDA_CHECK_LAUNCH();
  const std::vector<unsigned> got = program::download(d_image, pixels);

  std::vector<unsigned> want(pixels);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      want[size_t(y) * size_t(width) + size_t(x)] = ray::trace_pixel(x, y, width, height, objects.data(), camera);
  return program::report("ray", program::compare_exact(got, want, "pixel"));
}
