// Register-estimate fixtures: divergent branches, device-function calls, many parameters, double precision.
// PTX: nvcc -ptx -arch=sm_75 -O3 control.cu; counts: ptxas -arch=sm_75 -v control.ptx

extern "C" __global__ void divergent_paths(const int* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  float r;
  if (v & 1) {
    float a = v * 0.5f, b = a * a;
    r = b * a + 3.0f;
  } else if (v & 2) {
    float a = v * 0.25f;
    r = a / (a + 1.0f);
  } else {
    r = 0;
    for (int k = 0; k < (v & 15); ++k) r += k * v;
  }
  out[i] = r;
}

extern "C" __global__ void switch_kernel(const int* op, const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], r;
  switch (op[i] & 7) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = x / y; break;
    case 4: r = fminf(x, y); break;
    case 5: r = fmaxf(x, y); break;
    case 6: r = x * x + y; break;
    default: r = 0; break;
  }
  out[i] = r;
}

extern "C" __global__ void nested_loops(const float* in, float* out, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b)
      if (((a + b) & 3) != 0) s += in[(i + a * m + b) % n];
  out[i] = s;
}

extern "C" __global__ void while_collatz(const unsigned* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i], steps = 0;
  while (x != 1 && steps < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  out[i] = steps;
}

__device__ __noinline__ float dev_poly(float x, float a, float b, float c) { return (a * x + b) * x + c; }

__device__ __noinline__ float dev_heavy(const float* p, int n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int k = 0; k + 3 < n; k += 4) {
    s0 += p[k]; s1 += p[k + 1] * 2.0f; s2 += p[k + 2] * 3.0f; s3 += p[k + 3] * 4.0f;
  }
  return s0 * s1 + s2 * s3;
}

extern "C" __global__ void call_simple(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = dev_poly(in[i], 1.5f, -2.0f, 0.25f);
}

extern "C" __global__ void call_live_across(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = in[i], b = in[i + n], c = in[i + 2 * n], d = in[i + 3 * n];
  float h = dev_heavy(in + i, 64);
  out[i] = h * a + b * c - d + dev_poly(a, b, c, d);
}

extern "C" __global__ void many_params(int p0, int p1, int p2, int p3, int p4, int p5, int p6, int p7,
                                       float f0, float f1, float f2, float f3, const int* x, int* y,
                                       double d0, double d1, long long l0, long long l1) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[i];
  double r = v * d0 + d1 * (p0 + p1 * v + p2 * v * v) + (l0 ^ (l1 + p3));
  r += (p4 - p5) * f0 + (p6 + p7) * f1 + f2 * f3;
  y[i] = (int)r;
}

extern "C" __global__ void dp_polynomial(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  y[i] = 1.0 + v * (0.5 + v * (0.25 + v * (0.125 + v * (0.0625 + v * 0.03125))));
}

extern "C" __global__ void dp_accumulators(const double* x, double* y, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5;
  for (int k = 0; k < iters; ++k) {
    double v = x[(i + k) % n];
    a0 = a0 * v + 1.0; a1 = a1 * v + a0; a2 = a2 * v + a1; a3 = a3 * v + a2; a4 = a4 * v + a3; a5 = a5 * v + a4;
  }
  y[i] = a0 + a1 + a2 + a3 + a4 + a5;
}

extern "C" __global__ void dp_sqrt_div(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sqrt(x[i]) / (x[i] + 1.0);
}

extern "C" __global__ void mixed_width(const short* a, const unsigned char* b, long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  short s = a[i];
  unsigned char c = b[i];
  long long r = (long long)s * c + ((long long)i << 33);
  out[i] = r ^ (r >> 7);
}

extern "C" __global__ void empty_kernel() {}

extern "C" __global__ void grid_stride_unrolled(const float* in, float* out, int n) {
  int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 4
  for (; i < n; i += stride) out[i] = in[i] * 2.0f + 1.0f;
}

extern "C" __global__ void spin_lock(int* lock, int* counter) {
  if ((threadIdx.x & 31) == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {}
    __threadfence();
    *counter += 1;
    __threadfence();
    atomicExch(lock, 0);
  }
}
