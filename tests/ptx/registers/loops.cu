// Loop shapes for the unrolling and scheduling rules of the register
// estimate (model/ptx/register_allocation.h); ptxas's counts are recorded in
// tests/test_register_allocation.cpp.
// PTX: nvcc -ptx -arch=sm_75 -O3 loops.cu; counts: ptxas -arch=sm_75 -v loops.ptx

// A counted loop with two loads per trip: ptxas unrolls it (nvcc 4 times,
// ptxas 4 more) and issues the copies' loads first.
extern "C" __global__ void dot_counted(const float* a, const float* b, float* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[t * n + k] * b[k];
  out[t] = acc;
}

// The same loop kept rolled: one trip's values only.
extern "C" __global__ void dot_rolled(const float* a, const float* b, float* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < n; ++k) acc += a[t * n + k] * b[k];
  out[t] = acc;
}

// A grid-stride loop: the step is not a constant, so its trip count is
// unknown before it and ptxas leaves it rolled.
extern "C" __global__ void dot_grid_stride(const float* a, const float* b, float* out, int n) {
  float acc = 0.0f;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) acc += a[k] * b[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// A counted loop with an exit in the middle: not unrolled.
extern "C" __global__ void find_first(const int* keys, int* out, int n, int key) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  int found = -1;
  for (int k = 0; k < n; ++k) {
    if (keys[t * n + k] == key) {
      found = k;
      break;
    }
  }
  out[t] = found;
}

// A counted loop of 64-bit values with a long body: past the size ptxas unrolls.
extern "C" __global__ void long_body(const double* a, double* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  double x = 0.0, y = 1.0, z = 2.0;
  for (int k = 0; k < n; ++k) {
    const double v = a[(t + k) & 1023];
    x = x * v + y; y = y * v + z; z = z * v + x;
    x = x * y + 1.0; y = y * z + 2.0; z = z * x + 3.0;
    x = x / (y + 4.0);
  }
  out[t] = x + y + z;
}

// A shared-memory tile loop with barriers, rolled by the CUDA source: the
// shared loads interleave with their multiply-adds.
extern "C" __global__ void tile_rolled(const float* a, const float* b, float* c, int n) {
  __shared__ float as[16][16], bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
#pragma unroll 1
  for (int t = 0; t < n; t += 16) {
    as[ty][tx] = a[row * n + t + tx];
    bs[ty][tx] = b[(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}
