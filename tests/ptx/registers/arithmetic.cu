// Register-estimate fixtures: straight-line and loop arithmetic.
// PTX: nvcc -ptx -arch=sm_75 -O3 arithmetic.cu; counts: ptxas -arch=sm_75 -v arithmetic.ptx

extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void poly_eval(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float r = 0.5f + v * (1.25f + v * (-0.75f + v * (0.3f + v * (0.11f + v * (-0.02f + v * 0.001f)))));
  y[i] = r * r + v;
}

extern "C" __global__ void many_temporaries(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = in[i], b = in[i + n], c = in[i + 2 * n], d = in[i + 3 * n];
  float e = a * b + c, f = b * c - d, g = c * d + a, h = d * a - b;
  float p = e * f + g * h, q = e * g - f * h, r = e * h + f * g, s = e - f + g - h;
  out[i] = p * q + r * s;
  out[i + n] = p - q * r + s;
  out[i + 2 * n] = e + f + g + h;
}

extern "C" __global__ void accumulators8(const float* in, float* out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7;
  for (int k = 0; k < iters; ++k) {
    float v = in[(i + k) % n];
    a0 = a0 * v + 1.0f; a1 = a1 * v + a0; a2 = a2 * v + a1; a3 = a3 * v + a2;
    a4 = a4 * v + a3; a5 = a5 * v + a4; a6 = a6 * v + a5; a7 = a7 * v + a6;
  }
  out[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

extern "C" __global__ void accumulators24(const float* in, float* out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[24];
#pragma unroll
  for (int j = 0; j < 24; ++j) acc[j] = j;
  for (int k = 0; k < iters; ++k) {
    float v = in[(i + k) & (n - 1)];
#pragma unroll
    for (int j = 0; j < 24; ++j) acc[j] = acc[j] * v + acc[(j + 23) % 24];
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 24; ++j) s += acc[j] * (j + 1);
  out[i] = s;
}

extern "C" __global__ void int_hash(const unsigned* in, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = in[i];
  for (int r = 0; r < 16; ++r) {
    h ^= h >> 16; h *= 0x7feb352dU; h ^= h >> 15; h *= 0x846ca68bU; h ^= h >> 16;
  }
  out[i] = h;
}

extern "C" __global__ void transcendental(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  out[i] = __sinf(x) * __cosf(x) + __expf(x) * __logf(x + 2.0f) + rsqrtf(x * x + 1.0f);
}

extern "C" __global__ void precise_math(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  out[i] = sinf(x) + expf(x) / (1.0f + x * x);
}
