// Fixture: vector loads, static and dynamic shared memory, constant and global
// variables with initializers, atomics.
__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__constant__ int cscalar = 5;
__device__ unsigned int counter = 0;
__device__ double gtable[3] = {1.0, 2.5, -3.0};
__device__ unsigned char gbytes[5] = {1, 2, 3, 4, 5};

extern "C" __global__ void vec_kernel(const float4* in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = __ldg(&in[i]);
    v.x *= coeffs[0]; v.y *= coeffs[1]; v.z *= coeffs[2]; v.w *= coeffs[3] + cscalar;
    out[i] = v;
  }
}

extern "C" __global__ void shared_kernel(const float* in, float* out, int n) {
  __shared__ float tile[128];
  __shared__ int flag;
  extern __shared__ float dyn[];
  int t = threadIdx.x;
  if (t == 0) flag = 0;
  tile[t] = in[blockIdx.x * 128 + t];
  dyn[t] = tile[t] * 2.0f;
  __syncthreads();
  atomicAdd(&flag, 1);
  atomicInc((unsigned*)&flag, 1000u);
  __syncthreads();
  float s = tile[127 - t] + dyn[(t + 1) & 127] + flag;
  out[blockIdx.x * 128 + t] = s;
}

extern "C" __global__ void atomic_kernel(float* f, unsigned long long* u, int* lock, double* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(f, 1.5f);
  atomicAdd(u, 3ull);
  atomicMax(lock + 1, i);
  atomicMin((unsigned*)lock + 2, (unsigned)i);
  atomicExch(lock + 3, i);
  atomicAnd(lock + 4, i);
  atomicOr(lock + 5, i);
  atomicXor(lock + 6, i);
  atomicAdd(d, gtable[i % 3]);
  atomicAdd(&counter, 1u);
  // spin lock
  bool done = false;
  while (!done) {
    if (atomicCAS(lock, 0, 1) == 0) {
      f[1] += 1.0f;
      __threadfence();
      atomicExch(lock, 0);
      done = true;
    }
  }
  if (gbytes[i % 5] == 3) f[2] = 0.0f;
}
