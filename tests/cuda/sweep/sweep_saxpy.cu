// The CUDA program of the sweep tests (tests/test_sweep.cpp): y = a*x + y over
// N elements, checked on the host. Exit 0 when every element is right, 1 when
// one is not, 2 for bad arguments. `--wrong` checks against a wrong value, so
// that a sweep sees a program that fails its own verification; `--write FILE`
// writes "ok" to FILE (relative to the working directory the sweep gives it).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

static bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "sweep_saxpy: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

int main(int argc, char** argv) {
  int n = 1024;
  bool wrong = false;
  const char* write = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--wrong") == 0) {
      wrong = true;
    } else if (std::strcmp(argv[i], "--write") == 0 && i + 1 < argc) {
      write = argv[++i];
    } else {
      char* end = nullptr;
      const long v = std::strtol(argv[i], &end, 10);
      if (*end != '\0' || v <= 0 || v > (1 << 24)) {
        std::fprintf(stderr, "usage: sweep_saxpy [N] [--wrong] [--write FILE]\n");
        return 2;
      }
      n = static_cast<int>(v);
    }
  }
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97);
    y[i] = static_cast<float>(i % 13);
  }
  float *dx = nullptr, *dy = nullptr;
  const size_t bytes = sizeof(float) * static_cast<size_t>(n);
  if (!ok(cudaMalloc(&dx, bytes), "cudaMalloc") || !ok(cudaMalloc(&dy, bytes), "cudaMalloc") ||
      !ok(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy") ||
      !ok(cudaMemcpy(dy, y.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy"))
    return 1;
  const float a = 2.0f;
  saxpy<<<(n + 127) / 128, 128>>>(n, a, dx, dy);
  if (!ok(cudaGetLastError(), "launch") || !ok(cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy"))
    return 1;
  cudaFree(dx);
  cudaFree(dy);
  for (int i = 0; i < n; ++i) {
    // Small integers: the result is exact in float.
    const float want = a * static_cast<float>(i % 97) + static_cast<float>(i % 13) + (wrong ? 1.0f : 0.0f);
    if (y[i] != want) {
      std::fprintf(stderr, "sweep_saxpy: y[%d] = %g, expected %g\n", i, y[i], want);
      return 1;
    }
  }
  if (write) {
    FILE* f = std::fopen(write, "w");
    if (!f || std::fputs("ok\n", f) < 0 || std::fclose(f) != 0) {
      std::fprintf(stderr, "sweep_saxpy: cannot write %s\n", write);
      return 1;
    }
  }
  std::printf("sweep_saxpy: %d elements ok\n", n);
  return 0;
}
