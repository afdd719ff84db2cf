// tests/test_fatbin.cpp: a program nvcc builds in several ways; the test
// reads its fat binary (nothing runs it). Two kernels, so the register
// counts are told apart by name.
#include <cstdio>

__global__ void scale(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

__global__ void polynomial(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double v = x[i];
    y[i] = ((3.0 * v + 2.0) * v - 7.0) * v + 1.0 / (v + 4.0);
  }
}

int main() {
  const int n = 256;
  float *x, *y;
  double *dx, *dy;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&dx, n * sizeof(double));
  cudaMalloc(&dy, n * sizeof(double));
  scale<<<n / 64, 64>>>(2.0f, x, y, n);
  polynomial<<<n / 64, 64>>>(dx, dy, n);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
