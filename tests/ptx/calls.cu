// Fixture: a non-inlined device function call, local arrays, recursion-free call chain.
struct Pair { float a; int b; };

__device__ __noinline__ float scale(float x, int k, Pair p) {
  float acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = x * (i + k) + p.a;
  return acc[(k + p.b) & 15];
}

__device__ __noinline__ void touch(int* out, int v) { out[threadIdx.x] = v * 3; }

extern "C" __global__ void calls_kernel(const float* in, float* out, int* iout, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int idx[8];
  for (int j = 0; j < 8; ++j) idx[j] = (i * 7 + j) % n;
  if (i < n) {
    Pair p{in[idx[k & 7]], k};
    out[i] = scale(in[i], k, p);
    touch(iout, i);
  }
}
